import CryptoCore
import Foundation
import HTTPServer
import Storage

extension RelyingPartyServer {
    /// The longest enrollment token looked up (the server makes 43 characters).
    static let maximumEnrollmentTokenBytes = 128

    /// The SHA-256 of an enrollment link's token as the link carries it: all the store keeps.
    static func enrollmentTokenHash(_ token: String) -> [UInt8] {
        DigestAlgorithm.sha256.hash(Array(token.utf8))
    }

    /// The account an enrollment link (`POST /webauthn/registration/options {"enrollmentToken"}`) registers a passkey
    /// on, and the link's token hash, which the registration context carries to verify. The link is only read here; verify
    /// takes it. Rate-limited per account like sign-in (and per address by the route).
    /// - Throws: `400 enrollment_link_invalid` for a token that is unknown, used, or whose account was deleted (its
    ///   links went with it); `400 enrollment_link_expired`; `429 rate_limited`.
    func enrollmentAccount(token: String) throws(ServerError) -> (user: UserRecord, tokenHash: [UInt8]) {
        guard !token.isEmpty, token.utf8.count <= Self.maximumEnrollmentTokenBytes else { throw ServerError(.enrollmentLinkInvalid) }
        let hash = Self.enrollmentTokenHash(token)
        let now = time.now
        let found = try storage {
            try store.transaction { transaction throws(StorageError) -> (EnrollmentTokenRecord, UserRecord?)? in
                guard let link = try transaction.enrollmentToken(hash: hash) else { return nil }
                return (link, try transaction.user(id: link.userID))
            }
        }
        guard let (link, user) = found, let user else { throw ServerError(.enrollmentLinkInvalid) }
        guard now < link.expiresAt else { throw ServerError(.enrollmentLinkExpired) }
        try limits.take(.account, key: "user:" + Base64URL.encode(user.id))
        return (user, hash)
    }

    /// What ends a registration through an enrollment link, in ONE store transaction: takes the link (of two verifies
    /// with one link, on any nodes, one gets it), adds the passkey to the link's account, stores the session and appends
    /// `passkey.registered`, `enrollment_link.used` and `session.created`. Nothing is written when it is refused.
    /// - Throws: `400 enrollment_link_invalid` when the link was used meanwhile, belongs to another account or its
    ///   account was deleted; `400 enrollment_link_expired` (the expired link is then deleted); what the store throws
    ///   (`409 credential_exists`).
    func completeEnrollment(
        tokenHash: [UInt8],
        credential: CredentialRecord,
        session: SessionRecord,
        now: Date
    ) throws(ServerError) -> UserRecord {
        enum Outcome {
            case enrolled(UserRecord)
            case refused(ServerError.Code)
        }
        let outcome = try storage {
            try store.transaction { transaction throws(StorageError) -> Outcome in
                guard let link = try transaction.deleteEnrollmentToken(hash: tokenHash), link.userID == credential.userID,
                    let user = try transaction.user(id: link.userID)
                else { return .refused(.enrollmentLinkInvalid) }
                guard now < link.expiresAt else { return .refused(.enrollmentLinkExpired) }
                // Checked again here, as the signed-in path does: passkeys may have been added since the options.
                guard try transaction.credentials(userID: user.id).count < configuration.maximumPasskeysPerAccount else {
                    return .refused(.passkeyLimitReached)
                }
                let events: [AccountEvent] = [
                    .passkeyRegistered(userID: user.id, credentialID: credential.id),
                    .enrollmentLinkUsed(userID: user.id, credentialID: credential.id),
                    .sessionCreated(session),
                ]
                try transaction.insertRegistration(newUser: nil, credential: credential, session: session, events: events.map { $0.event(at: now) })
                return .enrolled(user)
            }
        }
        switch outcome {
        case .enrolled(let user): return user
        case .refused(let code): throw ServerError(code)
        }
    }
}
