import AccountEvents
import CryptoCore
import Email
import Foundation
import HTTPEdge
import Storage

/// Verifying an address before it becomes the account's: a pending verification (`EmailTokenRecord`, purpose
/// `verifyAddress`) holding the new address, spent by its link or its 6-digit code. The account's `email` and
/// `emailVerified` change only then, so an unverified address is never used to link accounts, to recover, or for a
/// notice; the old verified address is told of the change.
extension AccountService {
    /// Codes tried per verification, the right one included, counted on every node (`countEmailCodeAttempt`).
    package static let maximumCodeAttempts = 5

    /// The SHA-256 of a link's token, bound to its purpose: a recovery link's token never spends a verification.
    package static func emailTokenHash(_ token: String, _ purpose: EmailTokenRecord.Purpose) -> [UInt8] {
        DigestAlgorithm.sha256.hash(Array((purpose.rawValue + ":" + token).utf8))
    }

    /// The SHA-256 of a verification code, bound to its account.
    package static func emailCodeHash(_ code: String, userID: [UInt8]) -> [UInt8] {
        DigestAlgorithm.sha256.hash(Array(("code:" + Base64URL.encode(userID) + ":" + code).utf8))
    }

    /// Six decimal digits, uniform (rejection sampling over 20 bits).
    package func verificationCode() -> String {
        while true {
            let bytes = random.bytes(count: 3)
            let value = (Int(bytes[0]) << 16 | Int(bytes[1]) << 8 | Int(bytes[2])) & 0xF_FFFF
            if value < 1_000_000 { return String(repeating: "0", count: 6 - String(value).count) + String(value) }
        }
    }

    /// Records `address` as the account's pending address and queues *verify your address* (a link built on
    /// `email.baseURL` and a 6-digit code, valid `email.verificationLifetimeSeconds`) to it, in one transaction; a
    /// newer request replaces the pending one.
    /// - Returns: when the link and code expire, or nil when there is no such account.
    /// - Throws: `400 email_not_configured` when passkeyd does not send the message.
    package func requestAddressVerification(userID: [UInt8], address: String) throws(ServerError) -> Date? {
        guard let mail, mail.settings.isEnabled(.verifyAddress) else { throw ServerError(.emailNotConfigured) }
        let token = Base64URL.encode(random.bytes(count: 32))
        let code = verificationCode()
        let now = time.now
        let lifetime = mail.settings.verificationLifetimeSeconds
        let record = EmailTokenRecord(
            tokenHash: Self.emailTokenHash(token, .verifyAddress),
            purpose: .verifyAddress,
            userID: userID,
            address: address,
            codeHash: Self.emailCodeHash(code, userID: userID),
            createdAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(lifetime))
        )
        let values = [
            "link": mail.settings.baseURL + "/email/verify?token=" + token, "code": code,
            "expiresMinutes": String(lifetime / 60),
        ]
        guard let message = mail.mail(.verifyAddress, to: address, userID: userID, values: values, now: now) else {
            throw ServerError(.invalidRequest, member: "email")
        }
        return try storage {
            try store.transaction { transaction throws(StorageError) -> Date? in
                guard try transaction.user(id: userID) != nil else { return nil }
                try transaction.replaceEmailToken(record)
                _ = try transaction.enqueueMail(message)
                return record.expiresAt
            }
        }
    }

    /// The address of the account's pending verification while it is valid (`pendingEmail` of `GET /me` and
    /// `GET /admin/users/{id}`): the address only, never its token or code.
    package static func pendingAddress(userID: [UInt8], in transaction: any StoreTransaction, now: Date) throws(StorageError) -> String? {
        try transaction.emailToken(userID: userID, purpose: .verifyAddress).flatMap { now < $0.expiresAt ? $0.address : nil }
    }

    /// Drops the account's pending verification (its link and code stop working): the address was set otherwise.
    package static func dropPendingAddress(userID: [UInt8], in transaction: any StoreTransaction) throws(StorageError) {
        if let pending = try transaction.emailToken(userID: userID, purpose: .verifyAddress) {
            _ = try transaction.deleteEmailToken(hash: pending.tokenHash)
        }
    }

    /// Spends a verification by its link's token (`POST /email/verify`).
    /// - Throws: `400 email_verification_invalid` (unknown, spent, replaced), `400 email_verification_expired`.
    package func verifyAddress(linkToken token: String) throws(ServerError) -> UserRecord {
        let hash = Self.emailTokenHash(token, .verifyAddress)
        return try spendVerification { transaction throws(StorageError) -> Result<EmailTokenRecord, ServerError> in
            guard let spent = try transaction.deleteEmailToken(hash: hash) else { return .failure(ServerError(.emailVerificationInvalid)) }
            return .success(spent)
        }
    }

    /// Spends the account's verification by its code (`POST /me/email/verify`). Every try counts, on every node; past
    /// `maximumCodeAttempts` the verification is locked until a new one is asked for.
    /// - Throws: `400 email_verification_invalid` (no pending verification, or a wrong code),
    ///   `400 email_verification_expired`, `400 email_verification_locked`.
    package func verifyAddress(code: String, userID: [UInt8]) throws(ServerError) -> UserRecord {
        let hash = Self.emailCodeHash(code, userID: userID)
        let now = time.now
        return try spendVerification { transaction throws(StorageError) -> Result<EmailTokenRecord, ServerError> in
            guard let counted = try transaction.countEmailCodeAttempt(userID: userID, purpose: .verifyAddress) else {
                return .failure(ServerError(.emailVerificationInvalid))
            }
            // Checked before the code, so that a locked verification tells nothing of a guess.
            guard now < counted.expiresAt else { return .success(counted) }
            guard counted.attempts <= Self.maximumCodeAttempts else { return .failure(ServerError(.emailVerificationLocked)) }
            guard let stored = counted.codeHash, ConstantTime.equals(stored, hash) else { return .failure(ServerError(.emailVerificationInvalid)) }
            _ = try transaction.deleteEmailToken(hash: counted.tokenHash)
            return .success(counted)
        }
    }

    /// Runs `take` (which finds the verification and spends it, or refuses; its writes commit either way, so a wrong
    /// code stays counted), then, for a verification still valid, makes its address the account's verified one:
    /// `user.updated` and, to the old verified address, *your address was changed*, in the same transaction.
    private func spendVerification(
        _ take: (any StoreTransaction) throws(StorageError) -> Result<EmailTokenRecord, ServerError>
    ) throws(ServerError) -> UserRecord {
        let now = time.now
        let outcome = try storage {
            try store.transaction { transaction throws(StorageError) -> Result<UserRecord, ServerError> in
                let token: EmailTokenRecord
                switch try take(transaction) {
                case .failure(let error): return .failure(error)
                case .success(let taken): token = taken
                }
                guard now < token.expiresAt else {
                    _ = try transaction.deleteEmailToken(hash: token.tokenHash)
                    return .failure(ServerError(.emailVerificationExpired))
                }
                guard var user = try transaction.user(id: token.userID) else { return .failure(ServerError(.emailVerificationInvalid)) }
                let previous = user.emailVerified ? user.email : nil
                var changes: [String] = []
                if user.email != token.address { changes.append("email") }
                if !user.emailVerified { changes.append("emailVerified") }
                (user.email, user.emailVerified) = (token.address, true)
                guard !changes.isEmpty else { return .success(user) }
                _ = try transaction.updateUser(user)
                try transaction.appendEvent(
                    AccountEvent.userUpdated(userID: user.id, changes: changes, externalID: user.externalID).event(at: now, random: random)
                )
                if let previous, previous.lowercased() != token.address.lowercased(), let mail,
                    let notice = mail.mail(.addressChanged, to: previous, userID: user.id, values: ["time": MailComposer.timeText(now)], now: now)
                {
                    _ = try transaction.enqueueMail(notice)
                }
                return .success(user)
            }
        }
        return try outcome.get()
    }
}
