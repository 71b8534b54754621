import Testing

@testable import MailTransport

/// The `{{name}}` templates: substitution, HTML escaping of values (never of the template's own HTML), and every
/// template refused at start-up.
struct MailTemplateTests {
    static let names: Set<String> = ["code", "link", "appName"]

    @Test func placeholdersAreReplacedWithOrWithoutSpaces() throws {
        let template = try MailTemplate("Your {{appName}} code is {{ code }}: {{link}}{{code}}", names: Self.names)
        #expect(template.names == ["appName", "code", "link"])
        #expect(
            template.render(["appName": "Example", "code": "123456", "link": "https://id.example.com/x"], escapingHTML: false)
                == "Your Example code is 123456: https://id.example.com/x123456"
        )
    }

    @Test func valuesAreEscapedInHTMLButTheTemplateIsNot() throws {
        let template = try MailTemplate("<p title=\"{{appName}}\">{{appName}} &amp; co</p>", names: Self.names)
        let value = "<script>alert('x')</script> & \"quoted\""
        #expect(
            template.render(["appName": value], escapingHTML: true)
                == "<p title=\"&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot;\">"
                + "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quoted&quot; &amp; co</p>"
        )
        #expect(template.render(["appName": value], escapingHTML: false).contains("<script>"))
    }

    @Test func textWithoutPlaceholdersAndLoneBracesStaysAsItIs() throws {
        #expect(try MailTemplate("", names: []).render([:], escapingHTML: true) == "")
        #expect(try MailTemplate("a } b }} c {", names: []).render([:], escapingHTML: true) == "a } b }} c {")
    }

    @Test(arguments: ["{{code", "a {{ code } b", "{{}}", "{{ }}", "{{1code}}", "{{co de}}", "{{code-x}}", "{{{code}}}", "{{unknown}}"])
    func malformedOrUnknownPlaceholdersAreRefused(source: String) {
        #expect(throws: MailError.self) { try MailTemplate(source, names: Self.names) }
        #expect(((try? MailTemplate(source, names: Self.names)) == nil))
    }

    @Test func overlongTemplatesAndNamesAreRefused() {
        #expect(throws: MailError.self) { try MailTemplate(String(repeating: "x", count: MailTemplate.maximumLength + 1), names: []) }
        let long = String(repeating: "n", count: MailTemplate.maximumNameLength + 1)
        #expect(throws: MailError.self) { try MailTemplate("{{\(long)}}", names: [long]) }
    }
}
