extension CompactJWS {
    /// Signs `payload` (a JSON object's bytes) as a compact JWS (RFC 7515 §7.1) with the protected header
    /// `{"alg", "kid", "typ"?}` of `key`: `base64url(header) . base64url(payload) . base64url(signature)`.
    public static func sign(payload: [UInt8], type: String? = nil, with key: JWSSigningKey) throws(CryptoError) -> String {
        var header = JSONObjectWriter(capacity: 96)
        header.add("alg", key.algorithm.rawValue)
        header.add("kid", key.keyID)
        if let type { header.add("typ", type) }
        var token = [UInt8]()
        token.reserveCapacity((payload.count + 96) * 4 / 3 + 128)
        Base64URL.append(header.finished(), to: &token)
        token.append(UInt8(ascii: "."))
        Base64URL.append(payload, to: &token)
        let signature = try key.sign(token)
        token.append(UInt8(ascii: "."))
        Base64URL.append(signature, to: &token)
        return String(decoding: token, as: UTF8.self)
    }
}
