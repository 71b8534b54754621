import Foundation

/// A passkey of the signed-in account (`GET /me/passkeys`, `GET /me`).
public struct Passkey: Codable, Sendable, Equatable, Identifiable {
    /// The base64url credential ID: what `renamePasskey` and `deletePasskey` take.
    public let id: String
    public let name: String
    public let createdAt: Date
    /// Absent until the first sign-in with it.
    public let lastUsedAt: Date?
    /// The COSE algorithm (-7 for ES256).
    public let algorithm: Int
    public let transports: [String]
    /// The authenticator model's AAGUID (all zeros for iCloud Keychain).
    public let aaguid: String
    public let attestationFormat: String
    /// The authenticator's name, when the server knows the AAGUID.
    public let authenticatorName: String?
    public let backupEligible: Bool
    public let backupState: Bool
    /// The signature counter went backwards once: the passkey may have been cloned.
    public let cloneWarning: Bool
    public let backupEligibilityChanged: Bool
}
