import Foundation

/// What proves the other account in `POST /me/merge`: exactly one of a merge token, an Apple sign-in of an Apple ID
/// linked to it, or a passkey assertion of one of its passkeys.
public enum MergeProof: Encodable, Sendable, Equatable {
    case mergeToken(String)
    case apple(identityToken: String, rawNonce: String)
    case passkey(AuthenticationResponse)

    private enum CodingKeys: String, CodingKey {
        case mergeToken, apple, passkey
    }

    private struct AppleProof: Encodable {
        let identityToken: String
        let rawNonce: String
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .mergeToken(let token): try container.encode(token, forKey: .mergeToken)
        case .apple(let identityToken, let rawNonce):
            try container.encode(AppleProof(identityToken: identityToken, rawNonce: rawNonce), forKey: .apple)
        case .passkey(let assertion): try container.encode(assertion, forKey: .passkey)
        }
    }
}
