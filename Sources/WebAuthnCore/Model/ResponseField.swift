import CryptoCore

/// Strict base64url decoding of response members, with an error naming the member.
enum ResponseField {
    /// The credential ID of a response, shared by both ceremonies: §7.1 step 3 / §7.2 step 3 (a public-key credential),
    /// and §5.1 (`id` is the base64url encoding of `rawId`).
    static func credentialID(type: String, id: String, rawId: String) throws(WebAuthnError) -> [UInt8] {
        // §7.1 step 3 / §7.2 step 3: the response must be of a public-key credential.
        guard type == "public-key" else {
            throw WebAuthnError(.responseInvalidType, "credential type is not public-key")
        }
        let rawID = try decode(rawId, member: "rawId")
        // §5.1: id is the base64url encoding of rawId.
        guard id == rawId else {
            throw WebAuthnError(.idMismatch, "credential id is not the base64url encoding of rawId")
        }
        return rawID
    }

    static func decode(_ text: String, member: String) throws(WebAuthnError) -> [UInt8] {
        guard let bytes = Base64URL.decode(text) else {
            throw WebAuthnError(.responseInvalidEncoding, "\(member) is not unpadded base64url")
        }
        return bytes
    }
}
