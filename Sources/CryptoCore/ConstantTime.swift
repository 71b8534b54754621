import COpenSSL

/// Comparisons whose running time does not depend on where the inputs differ.
public enum ConstantTime {
    /// True when both byte sequences are equal. Lengths are not secret: unequal lengths return false at once.
    public static func equals(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        if left.isEmpty { return true }
        return left.withUnsafeBytes { l in
            right.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, l.count) == 0 }
        }
    }

    /// True when both buffers hold the same bytes.
    public static func equals(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        left.count == right.count && (left.isEmpty || CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0)
    }

    /// True when both texts have the same UTF-8 bytes, compared in constant time without copying them.
    public static func equals(_ left: String, _ right: String) -> Bool {
        var left = left
        var right = right
        return left.withUTF8 { l in
            right.withUTF8 { r in equals(l, r) }
        }
    }
}
