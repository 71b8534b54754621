import CryptoCore
import Foundation
import HTTPEdge
import JSON
import Storage
import WebAuthnCore

/// The merge tokens a `409` carries (`POST /auth/apple`'s `apple_identity_taken`, `POST /me/merge`'s
/// `merge_conflict`): single-use codes bound to both accounts and the session, which `POST /me/merge` takes as proof.
struct MergeTokens: Sendable {
    /// How long a merge token is valid.
    static let lifetime: TimeInterval = 300

    let challenges: ChallengeService

    /// The members a `409` adds for merging the signed-in account with `other`: a merge token bound to both accounts and
    /// the session, valid once for `lifetime`.
    func members(current: [UInt8], other: [UInt8], session: SessionRecord) throws(ServerError) -> [String: JSONValue] {
        let issued = try challenges.issueCode(
            .merge,
            userID: current,
            context: JSONBody.encode(Context(otherUserId: Base64URL.encode(other), sessionId: Base64URL.encode(session.id))),
            lifetime: Self.lifetime
        )
        return JSONBody.tree(TokenJSON(mergeToken: issued.code, mergeTokenExpiresAt: issued.expiresAt)).objectValue ?? [:]
    }

    struct TokenJSON: Encodable {
        let mergeToken: String
        let mergeTokenExpiresAt: Date
    }

    /// What a merge token stands for (its challenge's `userID` is the signed-in account).
    struct Context: Codable {
        var otherUserId: String
        var sessionId: String
    }
}
