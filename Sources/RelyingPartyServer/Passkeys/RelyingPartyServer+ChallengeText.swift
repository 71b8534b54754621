import CryptoCore
import HTTPEdge
import WebAuthnCore

extension RelyingPartyServer {
    /// The challenge text of a response's client data (verified in full later by the ceremony).
    static func challengeText(_ clientDataJSON: String) throws(ServerError) -> String {
        guard let bytes = Base64URL.decode(clientDataJSON) else {
            throw ServerError(.verificationFailed, member: "response.clientDataJSON")
        }
        do {
            return try CollectedClientData(bytes: bytes).challenge
        } catch {
            throw .verification(error)
        }
    }
}
