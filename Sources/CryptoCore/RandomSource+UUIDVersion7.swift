import Foundation

extension RandomSource {
    /// A time-ordered UUID (version 7, RFC 9562 §5.7) for `time`, from this source's bytes: the 48-bit big-endian count
    /// of Unix milliseconds (clamped to 0 before 1970 and to the field's largest value), the version 7, 12 random bits,
    /// the variant `10` and 62 random bits. Two made in one millisecond differ in their 74 random bits.
    public func uuidVersion7(at time: Date) -> UUID {
        var bytes = self.bytes(count: 16)
        let largest = Double(UInt64(1) << 48 - 1)
        let milliseconds = UInt64(min(max(0, (time.timeIntervalSince1970 * 1000).rounded(.down)), largest))
        for index in 0..<6 {
            bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - UInt64(index))))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x70
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return Self.uuid(bytes)
    }
}
