// Target `mail`: MailTransport's parsers and checks of text that becomes mail — `MailTemplate` (the `{{name}}`
// templates of `email.templates`), `MailAddress` and the header fields of `MailMessage` — with the input as a template,
// as an address, and as a subject and display name.
import Foundation
import MailTransport

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: bytes(data, size), as: UTF8.self)
    let names: Set<String> = ["code", "link", "appName"]
    if let template = try? MailTemplate(text, names: names) {
        guard template.names.isSubset(of: names) else { fuzzFailure("a template uses a name it was not given") }
        let plain = template.render([:], escapingHTML: false)
        guard template.render([:], escapingHTML: true) == plain else { fuzzFailure("escaping changed the template's own text") }
        let hostile = template.render(["code": "<&\"'>", "link": "<&\"'>", "appName": "<&\"'>"], escapingHTML: true)
        guard hostile.filter({ $0 == "<" }).count == plain.filter({ $0 == "<" }).count else { fuzzFailure("a value's < was not escaped") }
    }
    _ = try? MailAddress(text)
    guard let from = try? MailAddress("no-reply@example.com", displayName: text),
        let message = try? MailMessage(
            identifier: "fuzz",
            from: from,
            to: try MailAddress("person@example.org"),
            subject: text,
            text: text,
            html: text,
            date: Date(timeIntervalSince1970: 0)
        )
    else { return 0 }
    // However the fields are written (plain, or encoded words folded onto continuation lines), the header section
    // has exactly the fields passkeyd writes: none can be added through a subject or a display name.
    let rendered = String(decoding: message.rendered(), as: UTF8.self)
    guard let end = rendered.range(of: "\r\n\r\n") else { fuzzFailure("no end of the header section") }
    let fields = rendered[..<end.lowerBound].components(separatedBy: "\r\n").filter { !$0.hasPrefix(" ") }
    let expected = ["From:", "To:", "Subject:", "Date:", "Message-ID:", "MIME-Version:", "Content-Type:"]
    guard fields.count == expected.count, zip(fields, expected).allSatisfy({ $0.hasPrefix($1) }) else {
        fuzzFailure("the header section holds a field passkeyd did not write")
    }
    return 0
}
