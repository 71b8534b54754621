/// Lower-case hexadecimal text of bytes (RFC 4648 §8, "base16", lower case): certificate fingerprints, key
/// identifiers, Apple's hashed nonce, generated names.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Two lower-case hex digits per byte, no separators.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
