import CryptoCore

/// Strict base64url decoding of response members, with an error naming the member.
enum ResponseField {
    static func decode(_ text: String, member: String) throws(WebAuthnError) -> [UInt8] {
        guard let bytes = Base64URL.decode(text) else {
            throw WebAuthnError("response.invalidEncoding", "\(member) is not unpadded base64url")
        }
        return bytes
    }
}
