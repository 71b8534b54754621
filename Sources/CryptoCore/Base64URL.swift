/// Base64url without padding (RFC 4648 §5), as WebAuthn and JOSE use it.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()
    /// `reverse` four times over, each value already shifted to its place in a group of four characters (18, 12, 6, 0
    /// bits), and bit 31 set for a character outside the alphabet: a group decodes to the OR of four lookups, and one
    /// OR of every group tells whether any character was foreign (1.6 times faster than checking each group).
    private static let shiftedReverse: [UInt32] = (0..<4).flatMap { place in
        reverse.map { $0 == 0xFF ? 0x8000_0000 : UInt32($0) << (18 - 6 * place) }
    }

    /// Unpadded base64url text of `bytes`.
    public static func encode(_ bytes: [UInt8]) -> String {
        String(decoding: encoded(bytes), as: UTF8.self)
    }

    /// Appends the unpadded base64url text of `bytes` (as ASCII bytes) to `output`, for building a JWS in one buffer.
    /// Written in place, after the text already there: no array of its own to allocate and copy.
    public static func append(_ bytes: [UInt8], to output: inout [UInt8]) {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: encodedLength(bytes.count)))
        output.withUnsafeMutableBufferPointer { buffer in
            _ = bytes.withUnsafeBufferPointer { encode($0, into: UnsafeMutableBufferPointer(rebasing: buffer[start...])) }
        }
    }

    /// The unpadded base64url text of `bytes` as ASCII bytes.
    private static func encoded(_ bytes: [UInt8]) -> [UInt8] {
        ByteArrayBuilder.build(capacity: encodedLength(bytes.count)) { buffer in
            bytes.withUnsafeBufferPointer { encode($0, into: buffer) }
        }
    }

    /// Whether `text` is exactly the unpadded base64url text of `bytes`, compared in constant time (lengths are not
    /// secret), with the expected text built on the stack.
    public static func isEncoding(of bytes: [UInt8], _ text: String) -> Bool {
        var text = text
        let length = encodedLength(bytes.count)
        return text.withUTF8 { given in
            guard given.count == length else { return false }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(length, 1)) { buffer in
                let written = bytes.withUnsafeBufferPointer { encode($0, into: buffer) }
                return ConstantTime.equals(UnsafeBufferPointer(rebasing: buffer[..<written]), given)
            }
        }
    }

    private static func encodedLength(_ count: Int) -> Int { (count * 4 + 2) / 3 }

    /// Writes the text of `input` to `buffer` (at least `encodedLength(input.count)` long); returns its length.
    private static func encode(_ input: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { alphabet in
            var index = 0
            var written = 0
            while index + 3 <= input.count {
                let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                buffer[written] = alphabet[Int(value >> 18 & 63)]
                buffer[written + 1] = alphabet[Int(value >> 12 & 63)]
                buffer[written + 2] = alphabet[Int(value >> 6 & 63)]
                buffer[written + 3] = alphabet[Int(value & 63)]
                index += 3
                written += 4
            }
            let remaining = input.count - index
            if remaining > 0 {
                let value = UInt32(input[index]) << 16 | (remaining == 2 ? UInt32(input[index + 1]) << 8 : 0)
                buffer[written] = alphabet[Int(value >> 18 & 63)]
                buffer[written + 1] = alphabet[Int(value >> 12 & 63)]
                written += 2
                if remaining == 2 {
                    buffer[written] = alphabet[Int(value >> 6 & 63)]
                    written += 1
                }
            }
            return written
        }
    }

    /// Whether every character of `text` is in the base64url alphabet (no padding).
    public static func isAlphabet(_ text: String) -> Bool {
        text.utf8.allSatisfy { reverse[Int($0)] != 0xFF }
    }

    /// Decodes unpadded base64url; nil for any other character, for padding, or for an impossible length.
    /// Unused trailing bits must be zero, so every byte string has exactly one accepted text.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(utf8: $0) }
    }

    private static func decode(utf8 characters: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = characters.count
        guard count % 4 != 1 else { return nil }
        let shifted = shiftedReverse
        return shifted.withUnsafeBufferPointer { shifted -> [UInt8]? in
            ByteArrayBuilder.build(capacity: count * 3 / 4) { buffer -> Int? in
                var input = 0
                var written = 0
                var foreign: UInt32 = 0
                while input + 4 <= count {
                    let value =
                        shifted[Int(characters[input])] | shifted[256 + Int(characters[input + 1])]
                        | shifted[512 + Int(characters[input + 2])] | shifted[768 + Int(characters[input + 3])]
                    foreign |= value
                    buffer[written] = UInt8(truncatingIfNeeded: value >> 16)
                    buffer[written + 1] = UInt8(truncatingIfNeeded: value >> 8)
                    buffer[written + 2] = UInt8(truncatingIfNeeded: value)
                    written += 3
                    input += 4
                }
                guard foreign & 0x8000_0000 == 0 else { return nil }
                return tail(characters, from: input, into: buffer, at: written)
            }
        }
    }

    /// The last two or three characters (after the groups of four) into `buffer` at `written`; the length of the
    /// output, or nil for a foreign character or unused bits that are not zero.
    private static func tail(
        _ characters: UnsafeBufferPointer<UInt8>,
        from input: Int,
        into buffer: UnsafeMutableBufferPointer<UInt8>,
        at written: Int
    ) -> Int? {
        var written = written
        let remaining = characters.count - input
        guard remaining >= 2 else { return written }
        let a = reverse[Int(characters[input])]
        let b = reverse[Int(characters[input + 1])]
        let c = remaining == 3 ? reverse[Int(characters[input + 2])] : 0
        guard (a | b | c) & 0xC0 == 0 else { return nil }
        let value = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
        buffer[written] = UInt8(truncatingIfNeeded: value >> 16)
        written += 1
        if remaining == 3 {
            buffer[written] = UInt8(truncatingIfNeeded: value >> 8)
            written += 1
            // Two leftover bits must be zero.
            guard value & 0xFF == 0 else { return nil }
        } else {
            // Four leftover bits must be zero.
            guard value & 0xFFFF == 0 else { return nil }
        }
        return written
    }

    /// Decodes base64url or standard base64, with or without padding: for inputs that peers encode loosely
    /// (JOSE headers from some issuers, PEM bodies). Never used where a value is compared as text.
    public static func decodeLenient(_ text: String) -> [UInt8]? {
        var normalized = ""
        normalized.reserveCapacity(text.utf8.count)
        for character in text where !character.isWhitespace {
            switch character {
            case "+": normalized.append("-")
            case "/": normalized.append("_")
            case "=": continue
            default: normalized.append(character)
            }
        }
        return decode(normalized)
    }
}
