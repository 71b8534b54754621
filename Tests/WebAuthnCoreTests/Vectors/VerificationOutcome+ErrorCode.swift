import WebAuthnCore
import WebAuthnVectors

extension VerificationOutcome {
    /// The outcome's error (its wire form, as `passkeyd verify` prints it) as a typed code; nil when the case verified
    /// or when the text is no `WebAuthnError.Code` (which then equals no expected code).
    var errorCode: WebAuthnError.Code? {
        error.flatMap { text in WebAuthnError.Code.allCases.first { $0.rawValue == text } }
    }
}
