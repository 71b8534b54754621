import CryptoCore

/// Attested credential data (WebAuthn §6.5.1): AAGUID (16 bytes), credential ID (2-byte big-endian length, then
/// the ID) and credential public key (a COSE_Key), as `AuthenticatorData` reads them from offset 37.
public struct AttestedCredentialData: Sendable {
    public let aaguid: [UInt8]
    public let credentialID: [UInt8]
    public let credentialPublicKey: COSEKey

    /// The AAGUID in its canonical UUID text form.
    public var aaguidString: String { Self.uuidString(aaguid) }

    /// The canonical UUID text of 16 bytes.
    public static func uuidString(_ bytes: [UInt8]) -> String {
        [bytes[0..<4], bytes[4..<6], bytes[6..<8], bytes[8..<10], bytes[10..<16]].map(Hex.encode).joined(separator: "-")
    }
}
