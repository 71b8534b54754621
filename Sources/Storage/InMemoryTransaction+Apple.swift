import Foundation

extension InMemoryTransaction {
    func appleIdentity(subject: String) throws(StorageError) -> AppleIdentityRecord? {
        try run { $0.appleIdentities[subject] }
    }

    func appleIdentities(userID: [UInt8]) throws(StorageError) -> [AppleIdentityRecord] {
        try run { state in
            state.appleIdentities.values
                .filter { $0.userID == userID }
                .sorted { left, right in
                    if left.createdAt != right.createdAt { return left.createdAt < right.createdAt }
                    return Array(left.subject.utf8).lexicographicallyPrecedes(Array(right.subject.utf8))
                }
        }
    }

    func appleIdentity(transferSubject: String) throws(StorageError) -> AppleIdentityRecord? {
        try run { state in state.appleIdentities.values.first { $0.transferSubject == transferSubject } }
    }

    func appleIdentities(after subject: String?, limit: Int) throws(StorageError) -> [AppleIdentityRecord] {
        try run { state in
            let after = subject.map { Array($0.utf8) }
            let following = state.appleIdentities.values.filter { identity in
                after.map { $0.lexicographicallyPrecedes(Array(identity.subject.utf8)) } ?? true
            }
            return Array(following.sorted { Array($0.subject.utf8).lexicographicallyPrecedes(Array($1.subject.utf8)) }.prefix(max(0, limit)))
        }
    }

    func insertAppleIdentity(_ identity: AppleIdentityRecord) throws(StorageError) {
        try run { state throws(StorageError) in
            guard state.appleIdentities[identity.subject] == nil else {
                throw StorageError(.appleIdentityTaken, "the Apple identity is already linked to an account")
            }
            if let transfer = identity.transferSubject, state.appleIdentities.values.contains(where: { $0.transferSubject == transfer }) {
                throw StorageError(.duplicateKey, "an Apple identity with this transfer subject already exists")
            }
            guard state.users[identity.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.appleIdentities[identity.subject] = identity
        }
    }

    func deleteAppleIdentity(subject: String) throws(StorageError) -> Bool {
        try run { state in
            state.appleRefreshTokens[subject] = nil
            return state.appleIdentities.removeValue(forKey: subject) != nil
        }
    }

    func updateAppleIdentity(_ identity: AppleIdentityRecord, subject: String) throws(StorageError) -> Bool {
        try run { state throws(StorageError) in
            guard state.appleIdentities[subject] != nil else { return false }
            if identity.subject != subject, state.appleIdentities[identity.subject] != nil {
                throw StorageError(.appleIdentityTaken, "the Apple identity is already linked to an account")
            }
            if let transfer = identity.transferSubject,
                state.appleIdentities.values.contains(where: { $0.transferSubject == transfer && $0.subject != subject })
            {
                throw StorageError(.duplicateKey, "an Apple identity with this transfer subject already exists")
            }
            guard state.users[identity.userID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            state.appleIdentities[subject] = nil
            state.appleIdentities[identity.subject] = identity
            if identity.subject != subject {
                state.appleRefreshTokens[identity.subject] = state.appleRefreshTokens.removeValue(forKey: subject)
            }
            return true
        }
    }

    func moveAppleIdentities(from userID: [UInt8], to targetUserID: [UInt8]) throws(StorageError) -> Int {
        try run { state throws(StorageError) in
            let moving = state.appleIdentities.values.filter { $0.userID == userID }
            guard !moving.isEmpty else { return 0 }
            guard state.users[targetUserID] != nil else { throw StorageError(.notFound, "the user does not exist") }
            for identity in moving {
                state.appleIdentities[identity.subject]?.userID = targetUserID
            }
            return moving.count
        }
    }

    func setAppleRefreshToken(subject: String, clientID: String, encryptedToken: [UInt8]) throws(StorageError) -> Bool {
        try run { state in
            guard state.appleIdentities[subject] != nil else { return false }
            state.appleRefreshTokens[subject, default: [:]][clientID] = encryptedToken
            return true
        }
    }

    func appleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord] {
        try run { state in Self.refreshTokens(state.appleRefreshTokens[subject] ?? [:], subject: subject) }
    }

    func deleteAppleRefreshTokens(subject: String) throws(StorageError) -> [AppleRefreshTokenRecord] {
        try run { state in Self.refreshTokens(state.appleRefreshTokens.removeValue(forKey: subject) ?? [:], subject: subject) }
    }

    private static func refreshTokens(_ tokens: [String: [UInt8]], subject: String) -> [AppleRefreshTokenRecord] {
        tokens.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            .map { AppleRefreshTokenRecord(subject: subject, clientID: $0.key, encryptedToken: $0.value) }
    }

    func insertLinkDecline(_ decline: LinkDecline) throws(StorageError) {
        try run { state throws(StorageError) in
            guard state.users[decline.first] != nil, state.users[decline.second] != nil else {
                throw StorageError(.notFound, "the user does not exist")
            }
            state.linkDeclines.insert(decline)
        }
    }

    func isLinkDeclined(_ decline: LinkDecline) throws(StorageError) -> Bool {
        try run { $0.linkDeclines.contains(decline) }
    }

    func rememberNonce(_ hash: [UInt8], until: Date, now: Date) throws(StorageError) -> Bool {
        try run { state in
            if let remembered = state.appleNonces[hash], now < remembered { return false }
            state.appleNonces[hash] = until
            return true
        }
    }

    func enqueueRevocation(token encryptedToken: [UInt8], clientID: String, notBefore: Date) throws(StorageError) -> Int64 {
        try run { state in
            state.lastRevocationID += 1
            let id = state.lastRevocationID
            state.appleRevocations[id] = AppleRevocationRecord(
                id: id,
                encryptedToken: encryptedToken,
                clientID: clientID,
                notBefore: notBefore,
                attempts: 0
            )
            return id
        }
    }

    func appleNotificationWatermark(subject: String, now: Date) throws(StorageError) -> Date? {
        try run { state in
            guard let entry = state.appleNotificationWatermarks[subject], now < entry.until else { return nil }
            return entry.eventAt
        }
    }

    func raiseAppleNotificationWatermark(subject: String, to eventAt: Date, until: Date, now: Date) throws(StorageError) {
        try run { state in
            guard let entry = state.appleNotificationWatermarks[subject], now < entry.until else {
                state.appleNotificationWatermarks[subject] = (eventAt, until)
                return
            }
            state.appleNotificationWatermarks[subject] = (max(entry.eventAt, eventAt), max(entry.until, until))
        }
    }
}
