import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension MailMessage {
    /// The message as RFC 5322 text with CRLF line ends: the header fields, then a `multipart/alternative` body of a
    /// `text/plain` and a `text/html` part, each UTF-8 in base64 lines of 76 characters. The boundary holds `=_`,
    /// which base64 text never does, so no part can contain it.
    public func rendered() -> [UInt8] {
        let boundary = "=_passkeyd_" + identifier
        var lines = [
            "From: " + Self.mailbox(from),
            "To: " + Self.mailbox(to),
        ]
        if let replyTo { lines.append("Reply-To: " + Self.mailbox(replyTo)) }
        lines += [
            "Subject: " + (HeaderText.isPlain(subject, allowing: true) ? subject : HeaderText.encodedWords(subject)),
            "Date: " + Self.headerDate(date),
            "Message-ID: <\(identifier)@\(from.domain)>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            "",
        ]
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines += [
                "--" + boundary,
                "Content-Type: \(type); charset=utf-8",
                "Content-Transfer-Encoding: base64",
                "",
                Data(body.utf8).base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed]),
            ]
        }
        lines += ["--" + boundary + "--", ""]
        return Array(lines.joined(separator: "\r\n").utf8)
    }

    /// `Name <local@domain>`, the name as it is when it is plain ASCII words, else as RFC 2047 encoded words.
    static func mailbox(_ mailbox: MailAddress) -> String {
        guard let name = mailbox.displayName else { return "<\(mailbox.address)>" }
        let phrase = HeaderText.isPlain(name, allowing: false) ? name : HeaderText.encodedWords(name)
        return "\(phrase) <\(mailbox.address)>"
    }

    /// RFC 5322 section 3.3: `Sat, 05 Dec 2026 23:50:19 +0000`, in UTC.
    static func headerDate(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) +0000"
    }
}
