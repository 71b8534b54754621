import Foundation

/// A passkey registered to a user.
public struct CredentialRecord: Sendable, Equatable {
    /// The credential ID; unique across all users (at most 1023 bytes).
    public var id: [UInt8]
    /// The handle of the user who owns the credential.
    public var userID: [UInt8]
    /// The user handle the authenticator holds for the credential (and returns as `userHandle`): `userID` when it was
    /// registered, kept when an account merge gives the credential to another account (an authenticator's handle never
    /// changes).
    public var userHandle: [UInt8]
    /// The public key as COSE_Key bytes.
    public var publicKey: [UInt8]
    /// The COSE algorithm identifier of the key.
    public var algorithm: Int
    /// The last signature counter seen.
    public var signCount: UInt32
    /// The transports the authenticator reported.
    public var transports: [String]
    /// The 16-byte authenticator model identifier.
    public var aaguid: [UInt8]
    /// The backup eligibility (BE) flag.
    public var backupEligible: Bool
    /// The backup state (BS) flag.
    public var backupState: Bool
    /// The attestation statement format, such as "packed" or "none".
    public var attestationFormat: String
    /// JSON text written by the server: attestation type and trust path summary.
    public var attestationSummary: String
    /// The user-editable label.
    public var name: String
    /// When the credential was registered.
    public var createdAt: Date
    /// When the credential last completed an authentication; nil if never.
    public var lastUsedAt: Date?
    /// Set once a signature counter regression was seen; never cleared by storage.
    public var cloneWarning: Bool
    /// Set once the BE flag changed since registration; a risk signal visible to the owner, never cleared by storage.
    public var backupEligibilityChanged: Bool

    /// Creates a credential record from its fields.
    public init(
        id: [UInt8],
        userID: [UInt8],
        publicKey: [UInt8],
        algorithm: Int,
        signCount: UInt32,
        transports: [String],
        aaguid: [UInt8],
        backupEligible: Bool,
        backupState: Bool,
        attestationFormat: String,
        attestationSummary: String,
        name: String,
        createdAt: Date,
        lastUsedAt: Date? = nil,
        cloneWarning: Bool = false,
        backupEligibilityChanged: Bool = false,
        userHandle: [UInt8]? = nil
    ) {
        self.id = id
        self.userID = userID
        self.userHandle = userHandle ?? userID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.transports = transports
        self.aaguid = aaguid
        self.backupEligible = backupEligible
        self.backupState = backupState
        self.attestationFormat = attestationFormat
        self.attestationSummary = attestationSummary
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.cloneWarning = cloneWarning
        self.backupEligibilityChanged = backupEligibilityChanged
    }
}

extension CredentialRecord {
    /// `transports` as the SQL drivers store them: a JSON array of strings.
    public func transportsJSON() throws(StorageError) -> String {
        guard let data = try? JSONEncoder().encode(transports) else { throw StorageError(.unavailable, "encoding the transports failed") }
        return String(decoding: data, as: UTF8.self)
    }

    /// Transports read back from `transportsJSON()`, or nil when the text is not a JSON array of strings.
    public static func transports(json: some Collection<UInt8>) -> [String]? {
        plainTransports(Array(json)) ?? (try? JSONDecoder().decode([String].self, from: Data(json)))
    }

    /// The text `transportsJSON()` writes, `["hybrid","internal"]`, read without a decoder (it runs for every passkey
    /// a sign-in reads): an array of strings of ASCII letters, digits and `-`, no space. Nil for any other text, which
    /// the decoder then reads.
    static func plainTransports(_ bytes: [UInt8]) -> [String]? {
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return nil }
        var transports: [String] = []
        var index = 1
        while index < bytes.count - 1 {
            guard bytes[index] == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            var end = start
            while end < bytes.count - 1, bytes[end] != UInt8(ascii: "\"") {
                let byte = bytes[end]
                let plain =
                    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
                guard plain else { return nil }
                end += 1
            }
            guard end < bytes.count - 1 else { return nil }
            transports.append(String(decoding: bytes[start..<end], as: UTF8.self))
            index = end + 1
            if index < bytes.count - 1 {
                guard bytes[index] == UInt8(ascii: ","), index + 1 < bytes.count - 1 else { return nil }
                index += 1
            }
        }
        return transports
    }
}
