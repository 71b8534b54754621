import Foundation

/// A JSON Web Signature in compact serialization (RFC 7515 §7.1): `header.payload.signature`, each part base64url.
/// Used for Apple identity tokens and notifications, SafetyNet attestations and FIDO metadata BLOBs.
public struct CompactJWS: Sendable {
    /// The JOSE header members passkeyd reads.
    public struct Header: Sendable, Decodable {
        public let alg: String
        public let kid: String?
        public let typ: String?
        /// Certificate chain, leaf first, standard base64 DER (RFC 7515 §4.1.6).
        public let x5c: [String]?
        /// Critical extensions (RFC 7515 §4.1.11); passkeyd understands none, so any presence is refused.
        let crit: [String]?
    }

    /// The default bound on a token's length: FIDO metadata BLOBs run to a few megabytes.
    public static let defaultMaximumLength = 16 << 20

    public let header: Header
    public let payload: [UInt8]
    public let signature: [UInt8]
    /// The ASCII bytes that were signed: `header.payload` as sent.
    public let signingInput: [UInt8]

    /// Parses a compact JWS: exactly three parts, a JSON object header with a string `alg` and no `crit`, a JSON
    /// object payload. With `strictBase64URL` every part must be unpadded base64url; otherwise padding and the
    /// standard alphabet are tolerated (SafetyNet responses). Nothing here is trusted until the signature verifies.
    public init(_ text: String, strictBase64URL: Bool = true, maximumLength: Int = CompactJWS.defaultMaximumLength) throws(CryptoError) {
        // Bound the work done on untrusted input before any decoding.
        guard text.utf8.count <= maximumLength else { throw Self.malformed("the JWS is longer than \(maximumLength) bytes") }
        // RFC 7515 §7.1: exactly three parts separated by periods.
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Self.malformed("a compact JWS has exactly three parts") }
        // RFC 7515 §2 and RFC 4648 §5: each part is base64url.
        let decode: (Substring) -> [UInt8]? = { strictBase64URL ? Base64URL.decode(String($0)) : Base64URL.decodeLenient(String($0)) }
        guard let headerBytes = decode(parts[0]), let payload = decode(parts[1]), let signature = decode(parts[2]) else {
            throw Self.malformed("a JWS part is not base64url")
        }
        // RFC 7515 §4: the header is a JSON object with a string alg.
        guard Self.isJSONObject(headerBytes), let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else {
            throw Self.malformed("the JWS header is not a JSON object with a string alg")
        }
        // RFC 7515 §4.1.11: a header naming critical extensions this verifier does not implement is refused.
        guard header.crit == nil else { throw Self.malformed("the JWS header has crit, and no extension is understood") }
        // RFC 7519 §7.2 (and every payload passkeyd reads): the payload is a JSON object.
        guard Self.isJSONObject(payload) else { throw Self.malformed("the JWS payload is not a JSON object") }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    }

    private static func isJSONObject(_ bytes: [UInt8]) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any]
    }

    /// The certificates of the `x5c` header, leaf first; nil when the header has none.
    public func certificates() throws(CryptoError) -> [X509Certificate]? {
        guard let encoded = header.x5c else { return nil }
        guard !encoded.isEmpty else { throw Self.malformed("the JWS x5c header is empty") }
        var certificates: [X509Certificate] = []
        for text in encoded {
            guard let der = Data(base64Encoded: text).map(Array.init) else { throw Self.malformed("an x5c entry is not standard base64") }
            certificates.append(try X509Certificate(der: der))
        }
        return certificates
    }

    /// Verifies the signature with `key` under the header's algorithm (RFC 7518 §3: RS*, PS*, ES* with raw r‖s,
    /// EdDSA), optionally restricted to `allowedAlgorithms`. `none` and HMAC algorithms never verify.
    public func verifySignature(with key: PublicKey, allowedAlgorithms: Set<String>? = nil) -> Bool {
        if let allowedAlgorithms, !allowedAlgorithms.contains(header.alg) { return false }
        let scheme: SignatureAlgorithm
        switch header.alg {
        case "RS256": scheme = .rsaPKCS1SHA256
        case "RS384": scheme = .rsaPKCS1SHA384
        case "RS512": scheme = .rsaPKCS1SHA512
        case "PS256": scheme = .rsaPSSSHA256
        case "PS384": scheme = .rsaPSSSHA384
        case "PS512": scheme = .rsaPSSSHA512
        case "ES256": scheme = .ecdsaSHA256
        case "ES384": scheme = .ecdsaSHA384
        case "ES512": scheme = .ecdsaSHA512
        case "EdDSA": scheme = key.type == .ed448 ? .ed448 : .ed25519
        default: return false
        }
        guard scheme.keyType == .ec else { return key.verify(signature: signature, message: signingInput, algorithm: scheme) }
        let curve: EllipticCurve =
            switch scheme {
            case .ecdsaSHA384: .p384
            case .ecdsaSHA512: .p521
            default: .p256
            }
        guard key.curve == curve, let der = ECDSASignatureEncoding.derEncoded(raw: signature, curve: curve) else { return false }
        return key.verify(signature: der, message: signingInput, algorithm: scheme)
    }

    private static func malformed(_ reason: String) -> CryptoError { CryptoError(.malformedJWS, reason) }
}
