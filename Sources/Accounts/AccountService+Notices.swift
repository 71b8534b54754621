import Email
import Foundation
import Storage

extension AccountService {
    /// What a security notice says happened (`{{notice}}`).
    package enum Notice: String {
        case passkeyAdded = "A passkey was added to your account."
        case passkeyRemoved = "A passkey was removed from your account."
        case identityLinked = "A sign-in identity was linked to your account."
        case identityUnlinked = "A sign-in identity was removed from your account."
        case recoveryCodeUsed = "A recovery code was used to get into your account."
        case recoveryLinkUsed = "A recovery link sent by email was used to get into your account."
        case accountDeleted = "Your account was deleted."
        case sessionsRevokedByAdministrator = "An administrator signed your account out of every session."
    }

    /// Queues a security notice to the account's address, in `transaction` (the one of the change), when email is
    /// configured with notices on and the address is verified: an unverified address is never written to.
    package func queueNotice(
        _ notice: Notice,
        userID: [UInt8],
        account: UserRecord? = nil,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) {
        try Self.queueNotice(notice, userID: userID, account: account, mail: mail, in: transaction, now: now)
    }

    /// `queueNotice` for the code that changes accounts outside this service (the sign-in resolvers).
    package static func queueNotice(
        _ notice: Notice,
        userID: [UInt8],
        account: UserRecord?,
        mail: MailComposer?,
        in transaction: any StoreTransaction,
        now: Date
    ) throws(StorageError) {
        guard mail != nil else { return }
        var user = account
        if user == nil { user = try transaction.user(id: userID) }
        guard let user, let message = noticeMail(notice, to: user, mail: mail, now: now) else { return }
        _ = try transaction.enqueueMail(message)
    }

    /// The notice to the account's address, or nil without email, with notices off, or without a VERIFIED address.
    package static func noticeMail(_ notice: Notice, to user: UserRecord, mail: MailComposer?, now: Date) -> NewMail? {
        guard let mail, user.emailVerified, let address = user.email else { return nil }
        let values = ["notice": notice.rawValue, "time": MailComposer.timeText(now)]
        return mail.mail(.securityNotice, to: address, userID: user.id, values: values, now: now)
    }
}
