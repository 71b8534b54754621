import Accounts
import CryptoCore
import Foundation
import HTTPEdge
import JSON
import Storage

/// Every admin operation, written once and used by both the admin API (`/admin/*` on `listen.admin`) and
/// `passkeyd admin` (which opens the configured store itself, so it works with the server stopped). Each change writes
/// its events in its own transaction; deleting an account is the one path `DELETE /me` takes (Apple revocations
/// queued, `user.deleted`).
public struct AdminService: Sendable {
    let store: any PasskeyStore
    let time: any TimeSource
    let random: any RandomSource
    let accounts: AccountService
    /// Woken after each change: its events' deliveries are due now.
    let webhooks: WebhookDispatcherInForce
    /// The relying party an export names, and the page an enrollment link opens.
    let relyingPartyID: String
    let enrollmentPageURL: String

    /// The page size when none is asked for, and the largest one.
    public static let defaultPageSize = 50
    public static let maximumPageSize = 200
    /// The longest search query (an email is at most 320 bytes).
    static let maximumQueryBytes = 512

    // MARK: users

    /// Accounts matching `query`, oldest-match first: on the first page the exact matches of an email (ASCII
    /// case-insensitive), an external id, an Apple `sub` and a passkey's credential ID (base64url), then every account whose username
    /// starts with `query` case-insensitively (`UserRecord.nameKey`), in the byte-wise order of the keys (every account
    /// for ""), continued by `nextCursor`.
    public func searchUsers(query: String, cursor: String?, limit: Int?) throws(ServerError) -> AdminUserPage {
        let size = try Self.pageSize(limit)
        guard query.utf8.count <= Self.maximumQueryBytes else { throw ServerError(.invalidRequest, member: "query") }
        let after = try cursor.map { (cursor: String) throws(ServerError) -> String in try AdminCursor.name(cursor, query: query) }
        let (exact, prefixed) = try transaction { transaction throws(StorageError) -> ([AdminUserPage.Match], [UserRecord]) in
            var exact: [AdminUserPage.Match] = []
            if after == nil, !query.isEmpty {
                for user in try transaction.users(email: query, limit: size) {
                    exact.append(AdminUserPage.Match(user: UserJSON(user), matchedBy: "email"))
                }
                if query.utf8.count <= UserRecord.maximumExternalIDBytes, let user = try transaction.user(externalID: query) {
                    exact.append(AdminUserPage.Match(user: UserJSON(user), matchedBy: "externalId"))
                }
                if let identity = try transaction.appleIdentity(subject: query), let user = try transaction.user(id: identity.userID) {
                    exact.append(AdminUserPage.Match(user: UserJSON(user), matchedBy: "appleUserId"))
                }
                if let credentialID = Base64URL.decode(query), !credentialID.isEmpty, let credential = try transaction.credential(id: credentialID),
                    let user = try transaction.user(id: credential.userID)
                {
                    exact.append(AdminUserPage.Match(user: UserJSON(user), matchedBy: "credentialId"))
                }
            }
            return (exact, try transaction.users(namePrefix: query, after: after, limit: size + 1))
        }
        var matches = exact
        var seen = Set(exact.map(\.user.id))
        for user in prefixed.prefix(size) where seen.insert(Base64URL.encode(user.id)).inserted {
            matches.append(AdminUserPage.Match(user: UserJSON(user), matchedBy: "username"))
        }
        let next = prefixed.count > size ? prefixed[size - 1].name : nil
        return AdminUserPage(users: matches, nextCursor: next.map { AdminCursor.make(name: $0, query: query) })
    }

    /// One account with its passkeys, Apple identities and live sessions.
    public func user(id: String) throws(ServerError) -> AdminUserDetail {
        let userID = try Self.userID(id)
        let now = time.now
        let found = try transaction { transaction throws(StorageError) -> AdminUserDetail? in
            guard let user = try transaction.user(id: userID) else { return nil }
            return AdminUserDetail(
                user: UserJSON(user),
                createdAt: user.createdAt,
                passkeys: try transaction.credentials(userID: userID).map(PasskeyJSON.init),
                appleIdentities: try transaction.appleIdentities(userID: userID).map(AccountJSON.AppleIdentityJSON.init),
                identities: try transaction.federatedIdentities(userID: userID).map(FederatedIdentityJSON.init),
                sessions: try transaction.sessions(userID: userID, now: now).map { SessionJSON($0, current: nil) },
                recoveryCodesLeft: try transaction.recoveryCodeCount(userID: userID),
                metadata: UserMetadata.value(of: user.metadata),
                pendingEmail: try AccountService.pendingAddress(userID: userID, in: transaction, now: now)
            )
        }
        guard let found else { throw ServerError(.userNotFound) }
        return found
    }

    /// A new account with a username (and a display name, an email, the app's own id), no way in yet: for
    /// invitations, and for the app's existing users, followed by an enrollment link. `user.created` with
    /// `method: admin`. Idempotent by `externalId`: when an account has it, that account is the answer, as it is
    /// (`created` false), whatever else the change says.
    public func createUser(_ change: AdminUserChange) throws(ServerError) -> AdminCreatedUser {
        let username = try RelyingPartyServer.validNewUsername(change.username, store: store)
        let displayName = try RelyingPartyServer.validName(change.displayName ?? username, member: "displayName")
        let email = try Self.validEmail(change.email).flatMap { $0.isEmpty ? nil : $0 }
        let externalID = try change.externalId.map { (text: String) throws(ServerError) -> String in try Self.validExternalID(text) }
        // A new account starts enabled: disabling it is a change of its own, with its event.
        guard change.disabled == nil else { throw ServerError(.invalidRequest, member: "disabled") }
        let metadata = try change.metadata.flatMap { (value: JSONValue) throws(ServerError) -> String? in try UserMetadata.text(of: value) }
        if let externalID, let existing = try transaction({ transaction throws(StorageError) in try transaction.user(externalID: externalID) }) {
            return AdminCreatedUser(user: UserJSON(existing), created: false)
        }
        let now = time.now
        let user = UserRecord(
            id: random.bytes(count: 32),
            name: username,
            displayName: displayName,
            displayNameIsDefault: change.displayName == nil,
            appAccountToken: random.uuid(),
            email: email,
            emailVerified: email != nil && change.emailVerified == true,
            createdAt: now,
            externalID: externalID,
            metadata: metadata
        )
        do {
            try accounts.create(user, method: .admin)
        } catch  where error.code == .externalIdTaken {
            // Another request made the account between the lookup and the insert: it is the answer.
            guard let externalID, let existing = try transaction({ transaction throws(StorageError) in try transaction.user(externalID: externalID) })
            else { throw error }
            return AdminCreatedUser(user: UserJSON(existing), created: false)
        }
        webhooks.wake()
        return AdminCreatedUser(user: UserJSON(user), created: true)
    }

    /// The account whose external id is `externalID` (`matchedBy: externalId`), or none: a page without a cursor.
    public func searchUsers(externalID text: String) throws(ServerError) -> AdminUserPage {
        let externalID = try Self.validExternalID(text)
        let user = try transaction { transaction throws(StorageError) in try transaction.user(externalID: externalID) }
        return AdminUserPage(users: user.map { [AdminUserPage.Match(user: UserJSON($0), matchedBy: "externalId")] } ?? [], nextCursor: nil)
    }

    /// Changes the username, display name, email and its verification (what the app's backend verified: a verified
    /// email is then compared for link suggestions), the external id and the metadata (`user.updated` names the changed
    /// members); disables or enables the account (`user.disabled`, `user.enabled`: `AccountService.update`).
    public func updateUser(id: String, _ change: AdminUserChange) throws(ServerError) -> UserJSON {
        let userID = try Self.userID(id)
        let username = try change.username.map { (name: String) throws(ServerError) -> String in
            try RelyingPartyServer.validNewUsername(name, owner: userID, store: store)
        }
        let displayName = try change.displayName.map { (name: String) throws(ServerError) -> String in
            try RelyingPartyServer.validName(name, member: "displayName")
        }
        let email = try Self.validEmail(change.email)
        let externalID = try change.externalId.map { (text: String) throws(ServerError) -> String in
            text.isEmpty ? "" : try Self.validExternalID(text)
        }
        let metadata = try change.metadata.map { (value: JSONValue) throws(ServerError) -> String? in try UserMetadata.text(of: value) }
        // With `email` on, a new address the app does not vouch for (`emailVerified: true`) is verified first: it stays
        // pending, and becomes the account's when its link or code is used.
        var pending: String?
        if let address = email, !address.isEmpty, change.emailVerified != true, accounts.mail?.settings.isEnabled(.verifyAddress) == true {
            pending = try EmailController.address(address)
        }
        // Any address the change sets replaces a pending one; a new pending address is requested below.
        let updated = try accounts.update(userID: userID, droppingPendingAddress: change.email != nil) { user in
            var changes: [String] = []
            if let disabled = change.disabled { user.disabled = disabled }
            if let metadata, metadata != user.metadata {
                user.metadata = metadata
                changes.append("metadata")
            }
            if let username, username != user.name {
                user.name = username
                changes.append("username")
            }
            if let displayName, displayName != user.displayName || user.displayNameIsDefault {
                user.displayName = displayName
                user.displayNameIsDefault = false
                changes.append("displayName")
            }
            if change.email != nil, pending == nil {
                let address = email?.isEmpty == true ? nil : email
                if address != user.email {
                    user.email = address
                    changes.append("email")
                }
            }
            if let externalID, (externalID.isEmpty ? nil : externalID) != user.externalID {
                user.externalID = externalID.isEmpty ? nil : externalID
                changes.append("externalId")
            }
            let verified =
                pending != nil
                ? user.emailVerified : user.email != nil && (change.emailVerified ?? (changes.contains("email") ? false : user.emailVerified))
            if verified != user.emailVerified {
                user.emailVerified = verified
                changes.append("emailVerified")
            }
            return changes
        }
        guard let updated else { throw ServerError(.userNotFound) }
        if let pending, !(updated.emailVerified && updated.email?.lowercased() == pending.lowercased()) {
            _ = try accounts.requestAddressVerification(userID: userID, address: pending)
        }
        webhooks.wake()
        return UserJSON(updated)
    }

    /// Deletes the account as `DELETE /me` does: its Apple refresh tokens queued for revocation, `user.deleted` with
    /// `reason: admin`.
    /// - Returns: what became of its Apple tokens (`AccountEvent.AppleRevocation`); nil without Sign in with Apple.
    @discardableResult
    public func deleteUser(id: String) throws(ServerError) -> String? {
        let userID = try Self.userID(id)
        guard let deletion = try accounts.delete(userID: userID, reason: .admin) else { throw ServerError(.userNotFound) }
        webhooks.wake()
        return deletion.appleRevocation?.rawValue
    }

    /// Merges the account `from` into `id`, which survives with every passkey and identity of both (`user.merged`);
    /// the other account's sessions end. Both must exist, differ and be enabled.
    /// - Returns: the survivor.
    public func mergeUsers(into id: String, from otherID: String) throws(ServerError) -> UserJSON {
        let survivorID = try Self.userID(id)
        let goneID = try Self.userID(otherID)
        guard goneID != survivorID else { throw ServerError(.mergeSameAccount) }
        guard let survivor = try accounts.merge(goneID, into: survivorID) else { throw ServerError(.userNotFound) }
        webhooks.wake()
        return UserJSON(survivor)
    }

    /// Ends every session of the account, each with `session.revoked` (`reason: admin`).
    /// - Returns: how many live sessions ended.
    public func revokeSessions(userID id: String) throws(ServerError) -> Int {
        let userID = try Self.userID(id)
        let ended = try accounts.revokeSessions(userID: userID, reason: .admin)
        guard let ended else { throw ServerError(.userNotFound) }
        webhooks.wake()
        return ended
    }

    /// Deletes one passkey of the account, the last one too (the account then needs an enrollment link or Apple to get
    /// in), and ends the sessions it signed in.
    public func deletePasskey(userID id: String, credentialID encoded: String) throws(ServerError) {
        let userID = try Self.userID(id)
        guard let credentialID = Base64URL.decode(encoded), !credentialID.isEmpty else { throw ServerError(.passkeyNotFound) }
        switch try accounts.deletePasskey(credentialID, userID: userID, keeping: nil, allowingLast: true) {
        case .deleted: webhooks.wake()
        case .accountNotFound: throw ServerError(.userNotFound)
        case .passkeyNotFound, .lastWayIn: throw ServerError(.passkeyNotFound)
        }
    }

    /// A single-use link that registers a passkey on the account (`POST /webauthn/registration/options
    /// {"enrollmentToken"}`), valid for `recovery.enrollmentLinkLifetimeSeconds`: for a person who lost every passkey, or
    /// an invited account. Only the token's SHA-256 is stored; `enrollment_link.created`.
    public func createEnrollmentLink(userID id: String, send: Bool = false) throws(ServerError) -> EnrollmentLinkJSON {
        let userID = try Self.userID(id)
        let prefix = enrollmentPageURL + "?token="
        guard let link = try accounts.createEnrollmentLink(userID: userID, mailedAs: send ? prefix : nil) else { throw ServerError(.userNotFound) }
        webhooks.wake()
        return EnrollmentLinkJSON(url: enrollmentPageURL + "?token=" + link.token, expiresAt: link.expiresAt)
    }

    // MARK: webhooks

    /// Webhook deliveries, by ID, of one status or all; continued by `nextCursor`.
    public func webhookDeliveries(status: String?, cursor: String?, limit: Int?) throws(ServerError) -> AdminDeliveryPage {
        let size = try Self.pageSize(limit)
        let wanted = try status.map { (name: String) throws(ServerError) -> WebhookDeliveryStatus in
            guard let wanted = WebhookDeliveryStatus(rawValue: name) else { throw ServerError(.invalidRequest, member: "status") }
            return wanted
        }
        let after = try cursor.map { (cursor: String) throws(ServerError) -> Int64 in try AdminCursor.deliveryID(cursor, status: status) } ?? 0
        let found = try storage { try store.webhookDeliveries(status: wanted, after: after, limit: size + 1) }
        let next = found.count > size ? found[size - 1].id : nil
        let page = Array(found.prefix(size))
        let eventIDs = try storage { try store.publicEventIDs(of: Array(Set(page.map(\.eventID)))) }
        return AdminDeliveryPage(
            // A delivery goes with its event: one whose event was purged since the first read is gone too.
            deliveries: page.compactMap { delivery in eventIDs[delivery.eventID].map { AdminDeliveryPage.Delivery(delivery, eventID: $0) } },
            nextCursor: next.map { AdminCursor.make(deliveryID: $0, status: status) }
        )
    }

    /// Queues a dead delivery again, due now.
    public func retryWebhookDelivery(id: String) throws(ServerError) {
        guard let deliveryID = Int64(id), deliveryID > 0 else { throw ServerError(.deliveryNotFound) }
        let now = time.now
        guard try transaction({ transaction throws(StorageError) in try transaction.retryWebhookDelivery(id: deliveryID, now: now) }) else {
            throw ServerError(.deliveryNotFound)
        }
        webhooks.wake()
    }

    // MARK: plumbing

    /// The body in one store transaction, its error mapped at the edge.
    func transaction<Result: Sendable>(_ body: (any StoreTransaction) throws(StorageError) -> Result) throws(ServerError) -> Result {
        try storage { try store.transaction(body) }
    }

    static func pageSize(_ limit: Int?) throws(ServerError) -> Int {
        guard let limit else { return defaultPageSize }
        guard (1...maximumPageSize).contains(limit) else { throw ServerError(.invalidRequest, member: "limit") }
        return limit
    }

    /// A base64url user handle of 1 to 64 bytes, or `404 user_not_found`.
    static func userID(_ text: String) throws(ServerError) -> [UInt8] {
        guard text.utf8.count <= 128, let bytes = Base64URL.decode(text), (1...64).contains(bytes.count) else {
            throw ServerError(.userNotFound)
        }
        return bytes
    }

    /// The app's own id of an account as given (compared byte for byte, never trimmed or folded): 1 to 255 bytes, no
    /// control characters.
    static func validExternalID(_ value: String) throws(ServerError) -> String {
        guard (1...UserRecord.maximumExternalIDBytes).contains(value.utf8.count),
            !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw ServerError(.invalidRequest, member: "externalId") }
        return value
    }

    /// An email address as given: trimmed, at most 320 bytes, one "@", no spaces or control characters; "" clears it.
    static func validEmail(_ value: String?) throws(ServerError) -> String? {
        guard let value else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return "" }
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard trimmed.utf8.count <= UserRecord.maximumEmailBytes, parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
            !trimmed.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else { throw ServerError(.invalidRequest, member: "email") }
        return trimmed
    }
}
