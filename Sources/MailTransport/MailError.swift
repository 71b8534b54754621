/// A message that cannot be composed, or a send that failed (`mail.*`). Reasons name the relay's host and port, the
/// SMTP reply code and libcurl's result; never an address, a subject, a body, a user name or a password.
public struct MailError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its stored and log form and never changes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case headerInvalid = "mail.headerInvalid"
            case addressInvalid = "mail.addressInvalid"
            case messageTooLarge = "mail.messageTooLarge"
            case templateInvalid = "mail.templateInvalid"
            case configurationInvalid = "mail.configurationInvalid"
            case connectFailed = "mail.connectFailed"
            case timeout = "mail.timeout"
            case tlsFailed = "mail.tlsFailed"
            case certificateInvalid = "mail.certificateInvalid"
            case authenticationFailed = "mail.authenticationFailed"
            case rejectedTemporarily = "mail.rejectedTemporarily"
            case rejectedPermanently = "mail.rejectedPermanently"
            case sendFailed = "mail.sendFailed"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A header field (display name, subject, message ID) holds CR, LF, NUL or another control character, or is
        /// over its length limit: refused, so that no field can add a header or a body.
        public static let headerInvalid = Code(.headerInvalid)
        /// An address is not a plain ASCII `local@domain` within 254 characters.
        public static let addressInvalid = Code(.addressInvalid)
        /// A body is over `MailMessage.maximumBodyBytes`.
        public static let messageTooLarge = Code(.messageTooLarge)
        /// A template has an unclosed `{{`, a placeholder that is not a name, a name the message does not know, or is
        /// over `MailTemplate.maximumLength`.
        public static let templateInvalid = Code(.templateInvalid)
        /// The relay settings are inconsistent (a host that is not a name or address, plain SMTP to a host that is
        /// not loopback, limits that are not positive).
        public static let configurationInvalid = Code(.configurationInvalid)
        /// No connection to the relay: refused, unreachable, or the name did not resolve. Transient.
        public static let connectFailed = Code(.connectFailed)
        /// The connect timeout or the whole send's deadline passed. Transient.
        public static let timeout = Code(.timeout)
        /// TLS could not be set up (STARTTLS refused or the handshake failed). Transient.
        public static let tlsFailed = Code(.tlsFailed)
        /// The relay's certificate does not lead to a trusted root or is not valid for its host. Transient: the
        /// message waits while the operator fixes the relay or the trust anchors.
        public static let certificateInvalid = Code(.certificateInvalid)
        /// The relay refused the user name and password. Transient: a fault of the relay account, not of the message.
        public static let authenticationFailed = Code(.authenticationFailed)
        /// The relay answered 4xx to the sender, a recipient or the message. Transient.
        public static let rejectedTemporarily = Code(.rejectedTemporarily)
        /// The relay answered 5xx to the sender, a recipient or the message. Permanent: sending again cannot help.
        public static let rejectedPermanently = Code(.rejectedPermanently)
        /// Another failure of the transfer (connection lost, a reply libcurl could not read). Transient.
        public static let sendFailed = Code(.sendFailed)

        /// The wire and log form, e.g. `mail.rejectedPermanently`.
        public var rawValue: String { base.rawValue }
        public var description: String { rawValue }
        /// Every code, for tests and documentation.
        public static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    public let code: Code
    /// A human-readable explanation.
    public let reason: String
    /// The relay's last SMTP reply code, when it answered one.
    public let replyCode: Int?

    public init(_ code: Code, _ reason: String, replyCode: Int? = nil) {
        self.code = code
        self.reason = reason
        self.replyCode = replyCode
    }

    /// Whether sending the same message again cannot succeed: a 5xx reply, or a message that cannot be composed.
    public var isPermanent: Bool {
        switch code {
        case .rejectedPermanently, .headerInvalid, .addressInvalid, .messageTooLarge: true
        default: false
        }
    }

    public var description: String { "\(code): \(reason)" }
}
