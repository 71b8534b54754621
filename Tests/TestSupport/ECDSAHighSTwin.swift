/// The high-S twin of a raw P-256 `r || s` signature: `r || (n - s)`, which ECDSA verifies as well as the original
/// (the malleability passkeyd's own tokens refuse). Test arithmetic only: the server normalises through OpenSSL.
public enum ECDSAHighSTwin {
    /// The order `n` of P-256 (SEC 2 §2.4.2), big-endian.
    public static let p256Order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// `r || (n - s)` of a 64-byte raw P-256 signature.
    public static func of(_ raw: [UInt8]) -> [UInt8] {
        precondition(raw.count == 64, "a raw P-256 signature is 64 bytes")
        var twin = Array(raw.prefix(32)) + [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            var difference = Int(p256Order[index]) - Int(raw[32 + index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            twin[32 + index] = UInt8(difference)
        }
        return twin
    }
}
