import CryptoCore
import HTTPEdge
import WebAuthnCore

extension RelyingPartyServer {
    /// The challenge text of a response's client data (verified in full later by the ceremony).
    static func challengeText(_ clientDataJSON: String) throws(ServerError) -> String {
        try clientData(clientDataJSON).parsed.challenge
    }

    /// A response's client data decoded and parsed, for its challenge and then for the ceremony, which verifies it in
    /// full without reading it again.
    static func clientData(_ clientDataJSON: String) throws(ServerError) -> DecodedClientData {
        do {
            return try DecodedClientData(text: clientDataJSON)
        } catch {
            if error.code == .responseInvalidEncoding { throw ServerError(.verificationFailed, member: "response.clientDataJSON") }
            throw .verification(error)
        }
    }
}
