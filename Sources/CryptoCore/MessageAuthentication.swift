import COpenSSL

/// HMAC (RFC 2104) through OpenSSL: the signatures of outbound webhooks (Standard Webhooks' `v1`, HMAC-SHA256).
public enum MessageAuthentication {
    /// HMAC-`digest` of `message` under `key`.
    public static func hmac(_ digest: DigestAlgorithm = .sha256, key: [UInt8], message: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: digest.outputLength)
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                output.withUnsafeMutableBufferPointer { out in
                    HMAC(
                        digest.messageDigest,
                        keyBytes.baseAddress,
                        Int32(keyBytes.count),
                        messageBytes.baseAddress,
                        messageBytes.count,
                        out.baseAddress,
                        &length
                    )
                }
            }
        }
        precondition(result != nil && Int(length) == digest.outputLength, "HMAC failed for \(digest.rawValue)")
        return output
    }
}
