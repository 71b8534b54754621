/// The one error type of the verification core: a stable machine `code` (e.g. `clientData.challengeMismatch`)
/// naming the step that failed, and a human `reason` safe to log. Neither contains secrets or personal data.
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let reason: String

    public init(_ code: String, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }
}
