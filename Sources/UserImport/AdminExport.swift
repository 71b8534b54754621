import CryptoCore
import Foundation
import JSON
import PasswordHashes
import Storage
import WebAuthnCore

/// The NDJSON of `GET /admin/export` and `POST /admin/import`: one JSON object a line, each with its `type`. The first
/// line is the header (`passkeyd.export`, `version`, the `relyingPartyId` the passkeys are bound to, `exportedAt`); then
/// each account (`user`) followed by its passkeys (`passkey`), Apple identities (`appleIdentity`) and identities at
/// OpenID providers (`identity`). Byte strings are
/// base64url, times ISO 8601 with milliseconds. Never a session, a refresh token, a recovery code or an enrollment
/// link, hashed or not: a passkey's public key is all a passkey carries, and it is not a secret. An import's lines are
/// checked by the server's `AccountFieldRules`, as the admin API checks its calls.
public enum AdminExport {
    /// The format's version, checked on import.
    public static let version = 1
    /// The longest line (or element of a JSON array) an import takes.
    public static let maximumLineBytes = 64 << 10
    /// The most lines (or users) of an import written in one transaction (`POST /admin/import`); the command line's
    /// import writes its file in batches and has no such limit.
    public static let maximumLines = 200_000

    static let headerType = "passkeyd.export"

    public struct Header: Codable, Sendable {
        var type = AdminExport.headerType
        var version: Int
        var relyingPartyId: String
        var exportedAt: Date

        public init(version: Int, relyingPartyId: String, exportedAt: Date) {
            self.version = version
            self.relyingPartyId = relyingPartyId
            self.exportedAt = exportedAt
        }
    }

    public struct User: Codable, Sendable {
        var type = "user"
        var id: String
        var username: String
        var displayName: String
        var displayNameIsDefault: Bool
        var appAccountToken: UUID
        var email: String?
        var emailVerified: Bool
        var createdAt: Date
        /// Absent on an import: the account's is left as it is.
        var externalId: String?
        /// Import only (an export never carries one): the account's password hash from the app's previous system, a
        /// PHC string (Argon2, scrypt, passlib's PBKDF2), bcrypt's or Django's (`PasswordHash`).
        var passwordHash: String?
        /// Whether the account is disabled; absent on an import (as 0.1.0 wrote them): an account's is left as it is,
        /// a new one is enabled.
        var disabled: Bool?
        /// The app's metadata (the server's `UserMetadata`); absent on an import: the account's is left as it is (`{}`
        /// removes it).
        var metadata: JSONValue?

        /// The line of `user`, whose stored metadata reads as `metadata`.
        public init(_ user: UserRecord, metadata: JSONValue?) {
            id = Base64URL.encode(user.id)
            username = user.name
            displayName = user.displayName
            displayNameIsDefault = user.displayNameIsDefault
            appAccountToken = user.appAccountToken
            email = user.email
            emailVerified = user.emailVerified
            createdAt = user.createdAt
            externalId = user.externalID
            disabled = user.disabled
            self.metadata = metadata
        }

        /// The record, each member checked as the admin API checks it (`rules`).
        func record(_ rules: some AccountFieldRules) throws(UserImportError) -> UserRecord {
            let email = try AdminExport.email(email, rules)
            return UserRecord(
                id: try AdminExport.bytes(id, member: "id", sizes: 1...64),
                name: try AdminExport.name(username, member: "username", rules),
                displayName: try AdminExport.name(displayName, member: "displayName", rules),
                displayNameIsDefault: displayNameIsDefault,
                appAccountToken: appAccountToken,
                email: email?.isEmpty == true ? nil : email,
                emailVerified: email?.isEmpty == false && emailVerified,
                createdAt: createdAt,
                externalID: try externalId.map { (text: String) throws(UserImportError) -> String in
                    guard let externalID = rules.externalID(text) else { throw UserImportError(.invalid, member: "externalId") }
                    return externalID
                },
                disabled: disabled ?? false,
                metadata: try storedMetadata(rules) ?? nil
            )
        }

        /// The metadata's stored text (nil inside for `{}`), or nil when the line has none.
        func storedMetadata(_ rules: some AccountFieldRules) throws(UserImportError) -> String?? {
            guard let metadata else { return nil }
            guard let text = rules.metadata(metadata) else { throw UserImportError(.invalid, member: "metadata") }
            return .some(text)
        }
    }

    public struct Passkey: Codable, Sendable {
        var type = "passkey"
        var id: String
        var userId: String
        var userHandle: String
        var publicKey: String
        var algorithm: Int
        var signCount: UInt32
        var transports: [String]
        var aaguid: String
        var backupEligible: Bool
        var backupState: Bool
        var attestationFormat: String
        var attestationSummary: String
        var name: String
        var createdAt: Date
        var lastUsedAt: Date?
        var cloneWarning: Bool
        var backupEligibilityChanged: Bool

        public init(_ credential: CredentialRecord) {
            id = Base64URL.encode(credential.id)
            userId = Base64URL.encode(credential.userID)
            userHandle = Base64URL.encode(credential.userHandle)
            publicKey = Base64URL.encode(credential.publicKey)
            algorithm = credential.algorithm
            signCount = credential.signCount
            transports = credential.transports
            aaguid = Base64URL.encode(credential.aaguid)
            backupEligible = credential.backupEligible
            backupState = credential.backupState
            attestationFormat = credential.attestationFormat
            attestationSummary = credential.attestationSummary
            name = credential.name
            createdAt = credential.createdAt
            lastUsedAt = credential.lastUsedAt
            cloneWarning = credential.cloneWarning
            backupEligibilityChanged = credential.backupEligibilityChanged
        }

        /// The record; its public key must be a COSE key of its algorithm.
        func record(_ rules: some AccountFieldRules) throws(UserImportError) -> CredentialRecord {
            let key = try AdminExport.bytes(publicKey, member: "publicKey", sizes: 1...4096)
            guard let parsed = try? COSEKey(bytes: key), parsed.algorithm.rawValue == algorithm else {
                throw UserImportError(.invalid, member: "publicKey")
            }
            guard transports.count <= 8, transports.allSatisfy({ (1...32).contains($0.utf8.count) }) else {
                throw UserImportError(.invalid, member: "transports")
            }
            guard attestationFormat.utf8.count <= 64 else { throw UserImportError(.invalid, member: "attestationFormat") }
            guard attestationSummary.utf8.count <= 4096 else { throw UserImportError(.invalid, member: "attestationSummary") }
            return CredentialRecord(
                id: try AdminExport.bytes(id, member: "id", sizes: 1...1023),
                userID: try AdminExport.bytes(userId, member: "userId", sizes: 1...64),
                publicKey: key,
                algorithm: algorithm,
                signCount: signCount,
                transports: transports,
                aaguid: try AdminExport.bytes(aaguid, member: "aaguid", sizes: 16...16),
                backupEligible: backupEligible,
                backupState: backupState,
                attestationFormat: attestationFormat,
                attestationSummary: attestationSummary,
                name: try AdminExport.name(name, member: "name", rules),
                createdAt: createdAt,
                lastUsedAt: lastUsedAt,
                cloneWarning: cloneWarning,
                backupEligibilityChanged: backupEligibilityChanged,
                userHandle: try AdminExport.bytes(userHandle, member: "userHandle", sizes: 1...64)
            )
        }
    }

    public struct AppleIdentity: Codable, Sendable {
        var type = "appleIdentity"
        var appleUserId: String
        var userId: String
        var email: String?
        var emailVerified: Bool
        var isPrivateEmail: Bool
        var emailDisabled: Bool
        var consentRevoked: Bool
        var realUserStatus: Int?
        var transferSubject: String?
        var transferredAt: Date?
        var lastSignInAt: Date?
        var createdAt: Date

        public init(_ identity: AppleIdentityRecord) {
            appleUserId = identity.subject
            userId = Base64URL.encode(identity.userID)
            email = identity.email
            emailVerified = identity.emailVerified
            isPrivateEmail = identity.isPrivateEmail
            emailDisabled = identity.emailDisabled
            consentRevoked = identity.consentRevoked
            realUserStatus = identity.realUserStatus
            transferSubject = identity.transferSubject
            transferredAt = identity.transferredAt
            lastSignInAt = identity.lastSignInAt
            createdAt = identity.createdAt
        }

        func record(_ rules: some AccountFieldRules) throws(UserImportError) -> AppleIdentityRecord {
            guard AdminExport.isAppleSubject(appleUserId) else { throw UserImportError(.invalid, member: "appleUserId") }
            guard transferSubject.map(AdminExport.isAppleSubject) ?? true else { throw UserImportError(.invalid, member: "transferSubject") }
            guard realUserStatus.map({ (0...2).contains($0) }) ?? true else { throw UserImportError(.invalid, member: "realUserStatus") }
            let email = try AdminExport.email(email, rules)
            return AppleIdentityRecord(
                subject: appleUserId,
                userID: try AdminExport.bytes(userId, member: "userId", sizes: 1...64),
                email: email?.isEmpty == true ? nil : email,
                emailVerified: emailVerified,
                isPrivateEmail: isPrivateEmail,
                emailDisabled: emailDisabled,
                consentRevoked: consentRevoked,
                realUserStatus: realUserStatus,
                transferSubject: transferSubject,
                transferredAt: transferredAt,
                lastSignInAt: lastSignInAt,
                createdAt: createdAt
            )
        }
    }

    /// The `type` every line has.
    private struct LineType: Decodable { let type: String }

    /// What an import writes: the records of the lines, each with its line number (1-based) for the errors.
    public struct Batch: Sendable {
        public var users: [(line: Int, record: UserRecord)] = []
        public var passkeys: [(line: Int, record: CredentialRecord)] = []
        public var appleIdentities: [(line: Int, record: AppleIdentityRecord)] = []
        public var passwords: [(line: Int, record: PasswordHashRecord)] = []
        public var identities: [(line: Int, record: FederatedIdentityRecord)] = []
        /// The user lines that state `disabled` and `metadata` (by line number): only those change an existing account's.
        public var disabled: [Int: Bool] = [:]
        public var metadata: [Int: String?] = [:]

        public init() {}

        /// Its records, of every kind.
        public var count: Int { users.count + passkeys.count + appleIdentities.count + passwords.count + identities.count }
    }

    /// An Apple `sub` as Apple makes them: 1 to 255 printable ASCII characters.
    public static func isAppleSubject(_ subject: String) -> Bool {
        (1...255).contains(subject.utf8.count) && subject.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// An imported hash, read and bounded as sign-in will read it (`invalid` with `member: passwordHash`).
    public static func passwordHash(_ text: String, userID: [UInt8], now: Date) throws(UserImportError) -> PasswordHashRecord {
        do {
            return PasswordHashRecord(userID: userID, hash: try PasswordHash(text).encoded, createdAt: now)
        } catch {
            throw UserImportError(.invalid, member: "passwordHash", reason: error.description)
        }
    }

    static func bytes(_ text: String, member: String, sizes: ClosedRange<Int>) throws(UserImportError) -> [UInt8] {
        guard text.utf8.count <= 4 * sizes.upperBound, let bytes = Base64URL.decode(text), sizes.contains(bytes.count) else {
            throw UserImportError(.invalid, member: member)
        }
        return bytes
    }

    /// A name as `rules` store it; refused, `usernameRefused` for the username and `valueRefused` for any other.
    static func name(_ value: String, member: String, _ rules: some AccountFieldRules) throws(UserImportError) -> String {
        guard let name = rules.name(value) else { throw UserImportError(member == "username" ? .usernameRefused : .valueRefused, member: member) }
        return name
    }

    /// An email address as `rules` store it ("" for a blank one), nil when there is none (`valueRefused` when refused).
    static func email(_ value: String?, _ rules: some AccountFieldRules) throws(UserImportError) -> String? {
        guard let value else { return nil }
        guard let email = rules.email(value) else { throw UserImportError(.valueRefused, member: "email") }
        return email
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(timeText(date))
        }
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            guard let date = ISO8601Time.parse(try container.decode(String.self)) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 time")
            }
            return Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000)
        }
        return decoder
    }

    /// A time as `2026-03-01T12:00:00.250Z`: to the millisecond, which an import reads back to the same text.
    static func timeText(_ date: Date) -> String {
        var (seconds, milliseconds) = Int64((date.timeIntervalSince1970 * 1000).rounded()).quotientAndRemainder(dividingBy: 1000)
        if milliseconds < 0 {
            seconds -= 1
            milliseconds += 1000
        }
        let whole = Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(Date.ISO8601FormatStyle())
        return whole.dropLast() + "." + String(String(milliseconds + 1000).dropFirst()) + "Z"
    }

    /// One line of the export.
    public static func line(_ value: some Encodable) -> [UInt8] {
        ((try? Array(encoder.encode(value))) ?? Array("{}".utf8)) + [UInt8(ascii: "\n")]
    }

    /// Where the records are: one a line (`ImportRecordReader`).
    public static let layout = ImportRecordReader.Layout.lines

    /// Reads an export's lines one at a time, in order: first the header (whose relying party must be
    /// `relyingPartyID`), then the records, each checked by `rules`, into a `Batch`.
    public struct Reader<Rules: AccountFieldRules> {
        let relyingPartyID: String
        let now: Date
        let rules: Rules
        public private(set) var sawHeader = false

        public init(relyingPartyID: String, now: Date, rules: Rules) {
            self.relyingPartyID = relyingPartyID
            self.now = now
            self.rules = rules
        }

        /// Adds the record of line `number` to `batch` (the header to nothing).
        /// - Throws: `invalid` with `line` (and `member`) for a line that is not JSON, of an unknown type or with a
        ///   member out of bounds, for a missing or foreign header; with the line, what `rules` refuse.
        public mutating func read(_ line: [UInt8], number: Int, into batch: inout Batch) throws(UserImportError) {
            do throws(UserImportError) {
                let data = Data(line)
                let type = try AdminExport.decode(LineType.self, data).type
                if !sawHeader {
                    let header = try type == AdminExport.headerType ? AdminExport.decodeLine(Header.self, data) : nil
                    guard let header, header.version == AdminExport.version else { throw UserImportError(.invalid, member: "version") }
                    guard header.relyingPartyId == relyingPartyID else { throw UserImportError(.invalid, member: "relyingPartyId") }
                    sawHeader = true
                    return
                }
                switch type {
                case "user":
                    let user = try AdminExport.decodeLine(User.self, data)
                    let record = try user.record(rules)
                    batch.users.append((number, record))
                    batch.disabled[number] = user.disabled
                    if let metadata = try user.storedMetadata(rules) { batch.metadata[number] = metadata }
                    if let text = user.passwordHash {
                        batch.passwords.append((number, try AdminExport.passwordHash(text, userID: record.id, now: now)))
                    }
                case "passkey": batch.passkeys.append((number, try AdminExport.decodeLine(Passkey.self, data).record(rules)))
                case "appleIdentity": batch.appleIdentities.append((number, try AdminExport.decodeLine(AppleIdentity.self, data).record(rules)))
                case "identity": batch.identities.append((number, try AdminExport.decodeLine(Identity.self, data).record(rules)))
                default: throw UserImportError(.invalid, member: "type")
                }
            } catch {
                throw error.onLine(number)
            }
        }

        /// Checks that the file had its header (an empty file has none).
        public func finish() throws(UserImportError) {
            guard sawHeader else { throw UserImportError(.invalid, member: "version").onLine(1) }
        }
    }

    /// A line of `type`, whose every member the type takes: one it does not (a misspelling, a newer release's) is
    /// `unknownMember` naming it, never dropped (as the admin API refuses a call's unknown members).
    /// The decoded line written back has every member the type read but a `null` one.
    private static func decodeLine<Value: Codable>(_ type: Value.Type, _ data: Data) throws(UserImportError) -> Value {
        let value = try decode(type, data)
        guard let given = StrictJSONParser.strictValue(Array(data))?.objectValue,
            let taken = (try? JSONDecoder().decode(JSONValue.self, from: encoder.encode(value)))?.objectValue
        else { throw UserImportError(.invalid, reason: "not strict JSON") }
        if let unknown = given.filter({ taken[$0.key] == nil && $0.value != .null }).map(\.key).min() {
            throw UserImportError(.unknownMember, member: unknown)
        }
        return value
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, _ data: Data) throws(UserImportError) -> Value {
        do {
            return try decoder.decode(type, from: data)
        } catch let DecodingError.keyNotFound(key, _) {
            throw UserImportError(.invalid, member: key.stringValue)
        } catch let DecodingError.typeMismatch(_, context) {
            throw UserImportError(.invalid, member: context.codingPath.last?.stringValue)
        } catch let DecodingError.dataCorrupted(context) {
            throw UserImportError(.invalid, member: context.codingPath.last?.stringValue)
        } catch {
            throw UserImportError(.invalid)
        }
    }
}
