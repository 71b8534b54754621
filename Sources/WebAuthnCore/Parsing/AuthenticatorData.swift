import CBOR

/// Authenticator data (WebAuthn §6.1), parsed strictly: the AT and ED flags must agree exactly with what
/// follows the fixed 37 bytes, and nothing may trail.
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
            throw WebAuthnError("authenticatorData.tooShort", "authenticator data is \(bytes.count) bytes; at least 37 are required")
        }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = AuthenticatorFlags(rawValue: bytes[32])
        signCount = UInt32(bytes[33]) << 24 | UInt32(bytes[34]) << 16 | UInt32(bytes[35]) << 8 | UInt32(bytes[36])
        var offset = 37
        let decoder = CBORDecoder()
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= offset + 18 else {
                throw WebAuthnError("authenticatorData.truncated", "attested credential data is truncated")
            }
            let aaguid = Array(bytes[offset..<offset + 16])
            let idLength = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard bytes.count >= offset + idLength else {
                throw WebAuthnError("authenticatorData.truncated", "credential ID is truncated")
            }
            let credentialID = Array(bytes[offset..<offset + idLength])
            offset += idLength
            let keyValue: CBORValue
            let keyLength: Int
            do {
                (keyValue, keyLength) = try decoder.decodeFirst(bytes[offset...])
            } catch {
                throw WebAuthnError("authenticatorData.malformedPublicKey", "credential public key is not well-formed CBOR: \(error.reason)")
            }
            let key = try COSEKey(value: keyValue, encoded: Array(bytes[offset..<offset + keyLength]))
            offset += keyLength
            attestedCredentialData = AttestedCredentialData(aaguid: aaguid, credentialID: credentialID, credentialPublicKey: key)
        } else {
            attestedCredentialData = nil
        }
        if flags.contains(.extensionData) {
            guard offset < bytes.count else {
                throw WebAuthnError("authenticatorData.missingExtensions", "the ED flag is set but no extensions follow")
            }
            let value: CBORValue
            let length: Int
            do {
                (value, length) = try decoder.decodeFirst(bytes[offset...])
            } catch {
                throw WebAuthnError("authenticatorData.malformedExtensions", "extensions are not well-formed CBOR: \(error.reason)")
            }
            guard value.mapValue != nil else {
                throw WebAuthnError("authenticatorData.malformedExtensions", "extensions are not a CBOR map")
            }
            extensions = value
            offset += length
        } else {
            extensions = nil
        }
        guard offset == bytes.count else {
            throw WebAuthnError(
                "authenticatorData.trailingBytes",
                "\(bytes.count - offset) bytes follow the authenticator data (AT/ED flags disagree with the content)"
            )
        }
    }
}
