extension CompactJWS {
    /// Signs `payload` (a JSON object's bytes) as a compact JWS (RFC 7515 §7.1) with the protected header
    /// `{"alg", "kid", "typ"?}` of `key`: `base64url(header) . base64url(payload) . base64url(signature)`.
    public static func sign(payload: [UInt8], type: String? = nil, with key: JWSSigningKey) throws(CryptoError) -> String {
        var token = key.encodedHeader(type: type)
        token.reserveCapacity(token.count + (payload.count * 4 + 2) / 3 + 2 + key.maximumSignatureLength * 4 / 3 + 1)
        token.append(UInt8(ascii: "."))
        Base64URL.append(payload, to: &token)
        let signature = try key.sign(token)
        token.append(UInt8(ascii: "."))
        Base64URL.append(signature, to: &token)
        return String(decoding: token, as: UTF8.self)
    }
}
