#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

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

    /// `text` decoded (`response.invalidEncoding` unless it is unpadded base64url) and parsed (§7.2 steps 8–9): the
    /// bytes always come from the text, so a ceremony that matches the text can use them.
    public init(text: String) throws(WebAuthnError) {
        self.text = text
        bytes = try ResponseField.decode(text, member: "clientDataJSON")
        parsed = try CollectedClientData(bytes: bytes)
    }

    /// Whether this was read from `clientDataJSON`, byte for byte (String's `==` would also match a canonically
    /// equivalent text, such as one with U+212A KELVIN SIGN for "K", which is not base64url). Both texts are stored
    /// contiguously (read off the request body) and compared in place: the generic `elementsEqual` of two UTF-8 views,
    /// a byte at a time, cost 14 k instructions a sign-in.
    func isRead(from clientDataJSON: String) -> Bool {
        guard text.utf8.count == clientDataJSON.utf8.count else { return false }
        let compared = text.utf8.withContiguousStorageIfAvailable { ours in
            clientDataJSON.utf8.withContiguousStorageIfAvailable { theirs in
                ours.isEmpty || memcmp(ours.baseAddress!, theirs.baseAddress!, ours.count) == 0
            }
        }
        if let compared = compared ?? nil { return compared }
        return text.utf8.elementsEqual(clientDataJSON.utf8)
    }
}
