import AccountEvents
import Accounts
import CryptoCore
import Foundation
import HTTPEdge
import Storage

/// Recovery by email: a single-use link (`EmailTokenRecord`, purpose `recovery`) sent to an account's VERIFIED address,
/// that opens the same restricted session as a recovery code (it may only add a passkey, read `/me` and sign out).
extension AccountService {
    /// The most accounts one request mails (accounts may share a verified address).
    static let maximumRecoveredAccounts = 3

    /// Queues a recovery link (valid `email.recoveryLinkLifetimeSeconds`) to every enabled account (at most `maximumRecoveredAccounts`) whose verified address is
    /// `address`, each replacing that account's previous link, in one transaction. An unverified address finds no
    /// account. The caller answers the same whatever this finds.
    /// - Returns: the accounts mailed.
    /// - Throws: `400 email_not_configured` when passkeyd does not send recovery links (which says nothing of an account).
    func requestRecoveryLinks(to address: String, admit: ([UInt8]) -> Bool) throws(ServerError) -> Int {
        guard let mail, mail.settings.isEnabled(.recovery) else { throw ServerError(.emailNotConfigured) }
        let now = time.now
        let lifetime = mail.settings.recoveryLinkLifetimeSeconds
        return try storage {
            try store.transaction { transaction throws(StorageError) -> Int in
                var mailed = 0
                let accounts = try transaction.users(verifiedEmail: address).filter { $0.emailVerified && !$0.disabled }
                for user in accounts.prefix(Self.maximumRecoveredAccounts) where admit(user.id) {
                    guard let recipient = user.email else { continue }
                    let token = Base64URL.encode(random.bytes(count: 32))
                    let values = [
                        "link": mail.settings.baseURL + "/auth/recovery/email?token=" + token,
                        "expiresMinutes": String(lifetime / 60),
                    ]
                    guard let message = mail.mail(.recovery, to: recipient, userID: user.id, values: values, now: now) else { continue }
                    try transaction.replaceEmailToken(
                        EmailTokenRecord(
                            tokenHash: Self.emailTokenHash(token, .recovery),
                            purpose: .recovery,
                            userID: user.id,
                            address: recipient,
                            codeHash: nil,
                            createdAt: now,
                            expiresAt: now.addingTimeInterval(TimeInterval(lifetime))
                        )
                    )
                    _ = try transaction.enqueueMail(message)
                    mailed += 1
                }
                return mailed
            }
        }
    }

    /// Spends a recovery link (atomically: of two requests with one link, on any nodes, one wins) and stores `session`
    /// (restricted: `SessionMethod.recoveryCode`'s kind): `recovery_link.used`, the notice, `session.created`.
    /// - Returns: the account, or nil when the link is unknown, spent, expired, or its address is no longer the
    ///   account's verified one (nothing is written then but the spent link's deletion).
    func recover(
        linkToken token: String,
        session prepare: ([UInt8]) -> SessionService.Issued
    ) throws(ServerError) -> (user: UserRecord, issued: SessionService.Issued)? {
        let now = time.now
        let hash = Self.emailTokenHash(token, .recovery)
        return try storage {
            try store.transaction { transaction throws(StorageError) -> (user: UserRecord, issued: SessionService.Issued)? in
                guard let link = try transaction.deleteEmailToken(hash: hash), link.purpose == .recovery, now < link.expiresAt,
                    let user = try transaction.user(id: link.userID), !user.disabled, user.emailVerified,
                    user.email?.lowercased() == link.address.lowercased()
                else { return nil }
                let issued = prepare(user.id)
                let session = issued.session
                try transaction.insertSession(session)
                try transaction.appendEvent(AccountEvent.recoveryLinkUsed(userID: user.id).event(at: now, random: random))
                try queueNotice(.recoveryLinkUsed, userID: user.id, account: user, in: transaction, now: now)
                try transaction.appendEvent(AccountEvent.sessionCreated(session).event(at: now, random: random))
                return (user, issued)
            }
        }
    }
}
