import CryptoCore
import Foundation
import Storage
import WebAuthnCore

/// A passkey as `/me`, `/me/passkeys` and the admin API show it.
public struct PasskeyJSON: Encodable, Sendable {
    public let id: String
    public let name: String
    public let createdAt: Date
    public let lastUsedAt: Date?
    public let algorithm: Int
    public let transports: [String]
    public let aaguid: String
    public let attestationFormat: String
    /// The authenticator's name from the FIDO metadata or the name list, recorded at registration.
    public let authenticatorName: String?
    public let backupEligible: Bool
    public let backupState: Bool
    public let cloneWarning: Bool
    public let backupEligibilityChanged: Bool

    init(_ record: CredentialRecord) {
        id = Base64URL.encode(record.id)
        name = record.name
        createdAt = record.createdAt
        lastUsedAt = record.lastUsedAt
        algorithm = record.algorithm
        transports = RelyingPartyServer.knownTransports(record.transports)
        aaguid = record.aaguid.count == 16 ? AttestedCredentialData.uuidString(record.aaguid) : ""
        attestationFormat = record.attestationFormat
        let summary = try? JSONDecoder().decode([String: String].self, from: Data(record.attestationSummary.utf8))
        authenticatorName = summary?["authenticatorName"]
        backupEligible = record.backupEligible
        backupState = record.backupState
        cloneWarning = record.cloneWarning
        backupEligibilityChanged = record.backupEligibilityChanged
    }
}
