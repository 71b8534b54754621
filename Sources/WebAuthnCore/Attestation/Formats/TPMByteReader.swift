/// Reads the big-endian TPM 2.0 wire encoding ([TPMv2-Part2] §5.4) of one structure, checking the bounds of
/// every read: a structure that ends early fails, and `finish()` fails when bytes trail.
struct TPMByteReader {
    private let bytes: [UInt8]
    private let structure: String
    private var offset = 0

    /// A reader over `bytes`; `structure` names what is read (e.g. "pubArea") in error reasons.
    init(_ bytes: [UInt8], structure: String) {
        self.bytes = bytes
        self.structure = structure
    }

    /// The next `count` bytes.
    mutating func readBytes(_ count: Int) throws(WebAuthnError) -> [UInt8] {
        guard count >= 0, bytes.count - offset >= count else {
            throw WebAuthnError(.tpmStructureMalformed, "\(structure) is truncated")
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// A UINT8.
    mutating func readUInt8() throws(WebAuthnError) -> UInt8 {
        try readBytes(1)[0]
    }

    /// A big-endian UINT16.
    mutating func readUInt16() throws(WebAuthnError) -> UInt16 {
        UInt16(try readInteger(2))
    }

    /// A big-endian UINT32.
    mutating func readUInt32() throws(WebAuthnError) -> UInt32 {
        UInt32(try readInteger(4))
    }

    /// A big-endian UINT64.
    mutating func readUInt64() throws(WebAuthnError) -> UInt64 {
        try readInteger(8)
    }

    /// A TPM2B sized buffer: a UINT16 size followed by that many bytes.
    mutating func readSizedBuffer() throws(WebAuthnError) -> [UInt8] {
        try readBytes(Int(try readUInt16()))
    }

    /// Fails unless every byte was read.
    func finish() throws(WebAuthnError) {
        guard offset == bytes.count else {
            throw WebAuthnError(.tpmStructureMalformed, "\(structure) has \(bytes.count - offset) trailing bytes")
        }
    }

    private mutating func readInteger(_ length: Int) throws(WebAuthnError) -> UInt64 {
        try readBytes(length).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
