/// Encodes `CBORValue`s in RFC 8949 preferred serialization: definite lengths, the shortest
/// head for every integer, length and tag, and the shortest float that keeps the value exactly.
/// Map entries keep the order they are given in.
///
/// `.simple(n)` is written as given: 20–23 come out as false, true, null and undefined, and
/// 24–31, which have no well-formed encoding, come out in the two-byte form decoders reject.
public enum CBOREncoder {
    /// The encoding of `value`.
    public static func encode(_ value: CBORValue) -> [UInt8] {
        var output: [UInt8] = []
        append(value, to: &output)
        return output
    }

    private static func append(_ value: CBORValue, to output: inout [UInt8]) {
        switch value {
        case .unsigned(let value):
            appendHead(majorType: 0, argument: value, to: &output)
        case .negative(let value):
            appendHead(majorType: 1, argument: value, to: &output)
        case .bytes(let bytes):
            appendHead(majorType: 2, argument: UInt64(bytes.count), to: &output)
            output += bytes
        case .text(let text):
            appendHead(majorType: 3, argument: UInt64(text.utf8.count), to: &output)
            output += text.utf8
        case .array(let elements):
            appendHead(majorType: 4, argument: UInt64(elements.count), to: &output)
            for element in elements {
                append(element, to: &output)
            }
        case .map(let entries):
            appendHead(majorType: 5, argument: UInt64(entries.count), to: &output)
            for entry in entries {
                append(entry.key, to: &output)
                append(entry.value, to: &output)
            }
        case .tagged(let tag, let content):
            appendHead(majorType: 6, argument: tag, to: &output)
            append(content, to: &output)
        case .boolean(let value):
            output.append(value ? 0xF5 : 0xF4)
        case .null:
            output.append(0xF6)
        case .undefined:
            output.append(0xF7)
        case .simple(let value):
            appendHead(majorType: 7, argument: UInt64(value), to: &output)
        case .float(let value):
            appendFloat(value, to: &output)
        }
    }

    /// RFC 8949 §3: the argument goes in the initial byte below 24, else in 1, 2, 4 or 8 following bytes.
    private static func appendHead(majorType: UInt8, argument: UInt64, to output: inout [UInt8]) {
        let type = majorType << 5
        switch argument {
        case ..<24:
            output.append(type | UInt8(argument))
        case ...UInt64(UInt8.max):
            output.append(type | 24)
            appendBigEndian(argument, byteCount: 1, to: &output)
        case ...UInt64(UInt16.max):
            output.append(type | 25)
            appendBigEndian(argument, byteCount: 2, to: &output)
        case ...UInt64(UInt32.max):
            output.append(type | 26)
            appendBigEndian(argument, byteCount: 4, to: &output)
        default:
            output.append(type | 27)
            appendBigEndian(argument, byteCount: 8, to: &output)
        }
    }

    private static func appendFloat(_ value: Double, to output: inout [UInt8]) {
        if let half = halfPrecisionBits(exactly: value) {
            output.append(0xF9)
            appendBigEndian(UInt64(half), byteCount: 2, to: &output)
        } else if let single = Float(exactly: value) {
            output.append(0xFA)
            appendBigEndian(UInt64(single.bitPattern), byteCount: 4, to: &output)
        } else {
            output.append(0xFB)
            appendBigEndian(value.bitPattern, byteCount: 8, to: &output)
        }
    }

    /// The IEEE 754 half-precision bits of `value` when it has one exactly; NaN becomes the quiet NaN `7e00`.
    private static func halfPrecisionBits(exactly value: Double) -> UInt16? {
        let sign: UInt16 = value.sign == .minus ? 0x8000 : 0
        if value.isNaN { return 0x7E00 }
        if value.isInfinite { return sign | 0x7C00 }
        if value == 0 { return sign }
        guard let single = Float(exactly: value) else { return nil }
        let exponent = Int(single.exponent)
        let significand = 1 << 23 | single.significandBitPattern
        switch exponent {
        case -24 ..< -14:
            // Subnormal: the value is significand × 2^(exponent - 23), a whole number of 2^-24 units.
            let shift = UInt32(-1 - exponent)
            guard significand & (1 << shift - 1) == 0 else { return nil }
            return sign | UInt16(significand >> shift)
        case -14...15:
            // Normal: the top 10 of single precision's 23 fraction bits, the other 13 zero.
            guard significand & 0x1FFF == 0 else { return nil }
            return sign | UInt16(exponent + 15) << 10 | UInt16(truncatingIfNeeded: significand >> 13) & 0x3FF
        default:
            return nil
        }
    }

    private static func appendBigEndian(_ value: UInt64, byteCount: Int, to output: inout [UInt8]) {
        for index in stride(from: byteCount - 1, through: 0, by: -1) {
            output.append(UInt8(truncatingIfNeeded: value >> (8 * index)))
        }
    }
}
