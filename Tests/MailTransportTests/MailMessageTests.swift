import Foundation
import Testing

@testable import MailTransport

/// Composing: the header fields, RFC 2047 words, the multipart body, and every refusal of a field that could inject a
/// header (what a reader makes of the result is checked by `SMTPClientTests`, with Python's `email` package).
struct MailMessageTests {
    static let date = Date(timeIntervalSince1970: 1_796_514_619)  // Sat, 05 Dec 2026 23:50:19 UTC

    static func message(
        subject: String = "Verify your address",
        fromName: String? = "passkeyd",
        text: String = "Hello",
        html: String = "<p>Hello</p>"
    )
        throws -> MailMessage
    {
        try MailMessage(
            identifier: "0193a6f0-1c2d-7e4f-8a9b-0c1d2e3f4a5b",
            from: try MailAddress("no-reply@example.com", displayName: fromName),
            to: try MailAddress("person@example.org"),
            replyTo: try MailAddress("help@example.com"),
            subject: subject,
            text: text,
            html: html,
            date: date
        )
    }

    static func text(_ message: MailMessage) -> String { String(decoding: message.rendered(), as: UTF8.self) }

    @Test func headerFieldsAreWrittenInOrderWithCRLF() throws {
        let rendered = Self.text(try Self.message())
        let header = rendered.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
        #expect(
            header == [
                "From: passkeyd <no-reply@example.com>", "To: <person@example.org>", "Reply-To: <help@example.com>",
                "Subject: Verify your address", "Date: Sat, 05 Dec 2026 23:50:19 +0000",
                "Message-ID: <0193a6f0-1c2d-7e4f-8a9b-0c1d2e3f4a5b@example.com>", "MIME-Version: 1.0",
                "Content-Type: multipart/alternative; boundary=\"=_passkeyd_0193a6f0-1c2d-7e4f-8a9b-0c1d2e3f4a5b\"",
            ]
        )
        // No bare LF anywhere: every line ends with CRLF.
        #expect(!rendered.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(rendered.hasSuffix("--=_passkeyd_0193a6f0-1c2d-7e4f-8a9b-0c1d2e3f4a5b--\r\n"))
    }

    @Test func bodiesAreBase64PartsOfAtMost76Characters() throws {
        let long = String(repeating: "a line of text that goes on. ", count: 40) + "\n.\n"
        let rendered = Self.text(try Self.message(text: long, html: "<p>" + long + "</p>"))
        let lines = rendered.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.count <= 998 })
        let parts = rendered.components(separatedBy: "--=_passkeyd_")
        #expect(parts.count == 4)
        let textPart = parts[1].components(separatedBy: "\r\n\r\n")
        #expect(textPart[0].contains("Content-Type: text/plain; charset=utf-8"))
        let encoded = textPart[1].trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(encoded.components(separatedBy: "\r\n").allSatisfy { $0.count <= 76 })
        #expect(Data(base64Encoded: encoded.replacingOccurrences(of: "\r\n", with: "")).map { String(decoding: $0, as: UTF8.self) } == long)
    }

    @Test func nonASCIISubjectsAndNamesBecomeEncodedWordsOfAtMost75Characters() throws {
        let subject = "Vérifiez votre adresse électronique, s'il vous plaît — 確認してください 🙂"
        let rendered = Self.text(try Self.message(subject: subject, fromName: "Zoë's Café"))
        let header = rendered.components(separatedBy: "\r\n\r\n")[0]
        #expect(header.contains("From: =?UTF-8?B?"))
        let words = header.components(separatedBy: .whitespacesAndNewlines).filter { $0.hasPrefix("=?UTF-8?B?") }
        #expect(words.count >= 3)
        #expect(words.allSatisfy { $0.count <= 75 && $0.hasSuffix("?=") })
        // Each word decodes on its own to whole UTF-8 characters.
        let decoded = words.map { word -> String? in
            let payload = word.dropFirst(10).dropLast(2)
            return Data(base64Encoded: String(payload)).flatMap { String(data: $0, encoding: .utf8) }
        }
        #expect(decoded.allSatisfy { $0 != nil })
        #expect(decoded.dropFirst().compactMap { $0 }.joined() == subject)
    }

    @Test func plainNamesWithSpecialsAreEncodedRatherThanQuoted() throws {
        let rendered = Self.text(try Self.message(fromName: "Support, Inc. <admin@evil.example>"))
        #expect(!rendered.contains("<admin@evil.example>"))
        #expect(rendered.contains("From: =?UTF-8?B?"))
    }

    @Test func subjectsThatLookLikeEncodedWordsAreEncoded() throws {
        let rendered = Self.text(try Self.message(subject: "=?UTF-8?B?SGk=?="))
        #expect(!rendered.contains("Subject: =?UTF-8?B?SGk=?="))
    }

    @Test(arguments: ["Hello\r\nBcc: victim@example.net", "Hello\nBcc: x", "Hello\rX", "Hello\u{0}", "tab\there", "del\u{7F}", "c1\u{85}"])
    func controlCharactersInTheSubjectAreRefused(subject: String) {
        #expect(throws: MailError(.headerInvalid, "the subject holds CR, LF, NUL or another control character")) {
            try Self.message(subject: subject)
        }
    }

    @Test(arguments: ["Name\r\nBcc: victim@example.net", "Name\u{0}", "Name\n"])
    func controlCharactersInDisplayNamesAreRefused(name: String) {
        #expect(throws: MailError(.headerInvalid, "the display name holds CR, LF, NUL or another control character")) {
            try MailAddress("a@example.com", displayName: name)
        }
    }

    @Test func overlongFieldsAreRefused() {
        #expect(throws: MailError.self) { try Self.message(subject: String(repeating: "s", count: MailMessage.maximumSubjectLength + 1)) }
        #expect(throws: MailError.self) { try MailAddress("a@example.com", displayName: String(repeating: "n", count: 129)) }
        #expect(throws: MailError(.messageTooLarge, "a body is over \(MailMessage.maximumBodyBytes) bytes")) {
            try Self.message(text: String(repeating: "x", count: MailMessage.maximumBodyBytes + 1))
        }
        #expect(throws: MailError.self) {
            try MailMessage(
                identifier: "id\r\nBcc: x",
                from: try MailAddress("a@example.com"),
                to: try MailAddress("b@example.com"),
                subject: "s",
                text: "t",
                html: "h",
                date: Self.date
            )
        }
    }

    @Test(arguments: [
        "person@example.org", "first.last+tag@mail.example.co.uk", "o'brien@example.ie", "x@localhost", "a_b-c=d@sub-domain.example",
    ])
    func plainAddressesAreAccepted(address: String) throws {
        #expect(try MailAddress(address).address == address)
    }

    @Test(arguments: [
        "", "no-at-sign", "@example.com", "person@", "person@@example.com", "per son@example.com", "person@exa mple.com",
        "person@example.com\r\nRCPT TO:<victim@example.net>", "person@example.com>", "<person@example.com>", "\"quoted\"@example.com",
        "a..b@example.com", ".a@example.com", "a.@example.com", "person@-example.com", "person@example-.com", "person@example..com",
        "pérson@example.com", "person@exämple.com", "person@example.com\u{0}", String(repeating: "l", count: 65) + "@example.com",
        "a@" + String(repeating: "d", count: 64) + ".com", "a@" + String(repeating: "d.", count: 126) + "com",
    ])
    func otherAddressesAreRefused(address: String) {
        #expect(throws: MailError.self) { try MailAddress(address) }
    }

    @Test func headerDatesAreRFC5322InUTC() {
        #expect(MailMessage.headerDate(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 +0000")
        #expect(MailMessage.headerDate(Date(timeIntervalSince1970: 951_782_400.9)) == "Tue, 29 Feb 2000 00:00:00 +0000")
    }
}
