import CBOR

/// Authenticator data (WebAuthn §6.1), parsed strictly: the AT and ED flags must agree exactly with what
/// follows the fixed 37 bytes, and nothing may trail.
///
/// Layout (§6.1 Table "Authenticator data layout", §6.5.1 "Attested credential data layout"):
///
///     offset  length  field
///     0       32      rpIdHash: SHA-256 of the RP ID
///     32      1       flags: bit 0 UP, 2 UV, 3 BE, 4 BS, 6 AT, 7 ED (1 and 5 reserved)
///     33      4       signCount: 32-bit unsigned big-endian
///     37      var     attestedCredentialData, only when AT is set (§6.5.1):
///       +0    16        aaguid
///       +16   2         credentialIdLength L: 16-bit unsigned big-endian, at most 1023
///       +18   L         credentialId
///       +18+L var       credentialPublicKey: one COSE_Key, CBOR (its length is what the decoder reads)
///     …       var     extensions: one CBOR map, only when ED is set, ending the data
public struct AuthenticatorData: Sendable {
    public let rpIDHash: [UInt8]
    public let flags: AuthenticatorFlags
    public let signCount: UInt32
    public let attestedCredentialData: AttestedCredentialData?
    public let extensions: CBORValue?
    /// The bytes as signed by the authenticator.
    public let bytes: [UInt8]

    /// The longest credential ID the spec allows (§5.8.1 / §7.1).
    public static let maximumCredentialIDLength = 1023

    public init(bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else {
            throw WebAuthnError(.authenticatorDataTooShort, "authenticator data is \(bytes.count) bytes; at least 37 are required")
        }
        self.bytes = bytes
        // §6.1: rpIdHash (bytes 0–31), flags (byte 32), signCount (bytes 33–36, big-endian).
        rpIDHash = Array(bytes[0..<32])
        flags = AuthenticatorFlags(rawValue: bytes[32])
        signCount = UInt32(bytes[33]) << 24 | UInt32(bytes[34]) << 16 | UInt32(bytes[35]) << 8 | UInt32(bytes[36])
        var offset = 37
        let decoder = CBORDecoder()
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else {
                throw WebAuthnError(.authenticatorDataTruncated, "attested credential data is truncated")
            }
            // §6.5.1: aaguid (16 bytes), then credentialIdLength (2 bytes, big-endian).
            let aaguid = Array(bytes[offset..<offset + 16])
            let idLength = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard bytes.count >= offset + idLength else {
                throw WebAuthnError(.authenticatorDataTruncated, "credential ID is truncated")
            }
            // §6.5.1: credentialId (credentialIdLength bytes), then credentialPublicKey (one COSE_Key, as long as its CBOR).
            let credentialID = Array(bytes[offset..<offset + idLength])
            offset += idLength
            let keyValue: CBORValue
            let keyLength: Int
            do {
                (keyValue, keyLength) = try decoder.decodeFirst(bytes[offset...])
            } catch {
                throw WebAuthnError(.malformedPublicKey, "credential public key is not well-formed CBOR: \(error.reason)")
            }
            let key = try COSEKey(value: keyValue, encoded: Array(bytes[offset..<offset + keyLength]))
            offset += keyLength
            attestedCredentialData = AttestedCredentialData(aaguid: aaguid, credentialID: credentialID, credentialPublicKey: key)
        } else {
            attestedCredentialData = nil
        }
        // §6.1: extensions, a CBOR map, follow when ED is set and must be the last bytes.
        if flags.contains(.extensionData) {
            guard offset < bytes.count else {
                throw WebAuthnError(.missingExtensions, "the ED flag is set but no extensions follow")
            }
            let value: CBORValue
            let length: Int
            do {
                (value, length) = try decoder.decodeFirst(bytes[offset...])
            } catch {
                throw WebAuthnError(.malformedExtensions, "extensions are not well-formed CBOR: \(error.reason)")
            }
            guard value.mapValue != nil else {
                throw WebAuthnError(.malformedExtensions, "extensions are not a CBOR map")
            }
            extensions = value
            offset += length
        } else {
            extensions = nil
        }
        guard offset == bytes.count else {
            throw WebAuthnError(
                .authenticatorDataTrailingBytes,
                "\(bytes.count - offset) bytes follow the authenticator data (AT/ED flags disagree with the content)"
            )
        }
    }
}
