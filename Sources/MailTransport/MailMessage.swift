import Foundation

/// One message to one recipient: a plain-text and an HTML version of the same content (`multipart/alternative`), with
/// the header fields RFC 5322 asks for. Every field is checked when the message is made, so `rendered()` cannot fail.
public struct MailMessage: Sendable, Equatable {
    public static let maximumSubjectLength = 200
    public static let maximumIdentifierLength = 64
    /// Each body's limit, in UTF-8 bytes.
    public static let maximumBodyBytes = 256 * 1024

    /// The left part of `Message-ID` (`<identifier@sender's domain>`): the same for every attempt at this message, so
    /// a recipient can tell a repeated delivery. Letters, digits, `.`, `-` and `_`.
    public let identifier: String
    public let from: MailAddress
    public let to: MailAddress
    public let replyTo: MailAddress?
    public let subject: String
    public let text: String
    public let html: String
    /// The `Date` header: when the message was written.
    public let date: Date

    public init(
        identifier: String,
        from: MailAddress,
        to: MailAddress,
        replyTo: MailAddress? = nil,
        subject: String,
        text: String,
        html: String,
        date: Date
    ) throws(MailError) {
        guard !identifier.isEmpty, identifier.count <= Self.maximumIdentifierLength,
            identifier.utf8.allSatisfy({ byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || Array(".-_".utf8).contains(byte)
            })
        else {
            throw MailError(.headerInvalid, "the message identifier is not 1 to \(Self.maximumIdentifierLength) letters, digits, '.', '-' or '_'")
        }
        try HeaderText.check(subject, field: "subject", maximumLength: Self.maximumSubjectLength)
        guard text.utf8.count <= Self.maximumBodyBytes, html.utf8.count <= Self.maximumBodyBytes else {
            throw MailError(.messageTooLarge, "a body is over \(Self.maximumBodyBytes) bytes")
        }
        self.identifier = identifier
        self.from = from
        self.to = to
        self.replyTo = replyTo
        self.subject = subject
        self.text = text
        self.html = html
        self.date = date
    }
}
