import CryptoCore
import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1), parsed strictly: exactly three unpadded base64url parts, a JSON
/// object header with a string `alg`, a JSON object payload, and the signature bytes. Nothing here is trusted until
/// the signature is verified.
public struct CompactJWS: Sendable {
    /// The longest token accepted; Apple's identity tokens and notifications are about 1 KB.
    public static let maximumLength = 16_384

    /// Header `alg` (RFC 7515 §4.1.1).
    public let algorithm: String
    /// Header `kid` (RFC 7515 §4.1.4), if present.
    public let keyID: String?
    /// Header `typ` (RFC 7515 §4.1.9), if present.
    public let type: String?
    /// The decoded payload: UTF-8 JSON text of an object.
    public let payload: [UInt8]
    /// The decoded signature.
    public let signature: [UInt8]
    /// The ASCII bytes `header.payload` as they appear in the token: what the signature covers (RFC 7515 §5.2).
    public let signingInput: [UInt8]

    private struct Header: Decodable {
        let alg: String
        let kid: String?
        let typ: String?
        let crit: [String]?
    }

    /// Parses `text`; throws `appleToken.malformed` for anything but a well-formed compact JWS.
    public init(_ text: String) throws(AppleSignInError) {
        let bytes = Array(text.utf8)
        // Bound the work done on untrusted input before any decoding.
        guard bytes.count <= Self.maximumLength else {
            throw AppleSignInError("appleToken.malformed", "token is longer than \(Self.maximumLength) bytes")
        }
        // RFC 7515 §7.1: exactly three parts separated by periods.
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw AppleSignInError("appleToken.malformed", "token has \(parts.count) period-separated parts, not 3")
        }
        // RFC 7515 §2 and RFC 4648 §5: each part is base64url without padding or any other character.
        guard let headerBytes = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)),
              let payload = Base64URL.decode(String(decoding: parts[1], as: UTF8.self)),
              let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self))
        else {
            throw AppleSignInError("appleToken.malformed", "a token part is not unpadded base64url")
        }
        // RFC 7515 §4: the header is a JSON object with a string alg.
        guard Self.isJSONObject(headerBytes) else {
            throw AppleSignInError("appleToken.malformed", "token header is not a JSON object")
        }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(headerBytes))
        } catch {
            throw AppleSignInError("appleToken.malformed", "token header lacks a string alg, or kid/typ/crit has the wrong type")
        }
        // RFC 7515 §4.1.11: a header naming critical extensions this verifier does not implement is refused.
        guard header.crit == nil else {
            throw AppleSignInError("appleToken.malformed", "token header has crit, and no extension is understood")
        }
        // RFC 7519 §7.2: the payload of a JWT is a JSON object (the claims set).
        guard Self.isJSONObject(payload) else {
            throw AppleSignInError("appleToken.malformed", "token payload is not a JSON object")
        }
        algorithm = header.alg
        keyID = header.kid
        type = header.typ
        self.payload = payload
        self.signature = signature
        signingInput = Array(bytes[..<parts[1].endIndex])
    }

    private static func isJSONObject(_ bytes: [UInt8]) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(bytes))) is [String: Any]
    }
}
