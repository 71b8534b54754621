import HTTPEdge
import WebAuthnCore

extension UserVerificationRequirement {
    /// The `userVerification` member of a request (or a stored challenge): required, preferred or discouraged.
    init(_ text: String) throws(ServerError) {
        guard let value = UserVerificationRequirement(rawValue: text) else {
            throw ServerError(.invalidRequest, member: "userVerification")
        }
        self = value
    }
}
