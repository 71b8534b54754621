/// Attested credential data (WebAuthn §6.5.2): AAGUID, credential ID and credential public key.
public struct AttestedCredentialData: Sendable {
    public let aaguid: [UInt8]
    public let credentialID: [UInt8]
    public let credentialPublicKey: COSEKey

    /// The AAGUID in its canonical UUID text form.
    public var aaguidString: String { Self.uuidString(aaguid) }

    /// The canonical UUID text of 16 bytes.
    public static func uuidString(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }
}
