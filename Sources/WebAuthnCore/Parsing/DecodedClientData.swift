/// A response's client data read once: the base64url text it came from, its bytes (what the signature covers, through
/// their hash) and what they say. The server reads it first to find the ceremony's challenge, then hands it to the
/// ceremony (`AuthenticationCeremony.verify(_:clientData:expecting:)`), which would otherwise decode and parse the same
/// text a second time.
public struct DecodedClientData: Sendable {
    /// The response's `clientDataJSON` as the client sent it.
    public let text: String
    /// `text` decoded.
    public let bytes: [UInt8]
    public let parsed: CollectedClientData

    /// `bytes`, which the caller decoded from `text`, parsed (§7.2 steps 8–9).
    public init(text: String, bytes: [UInt8]) throws(WebAuthnError) {
        self.text = text
        self.bytes = bytes
        parsed = try CollectedClientData(bytes: bytes)
    }
}
