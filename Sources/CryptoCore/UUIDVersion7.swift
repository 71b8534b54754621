import Foundation

/// The layout of a time-ordered UUID (version 7, RFC 9562 §5.7) over 16 random bytes: what `uuidVersion7(at:)` makes,
/// and what an ID that must be unguessable yet grow with time (a session's ID, appended to its index instead of
/// landing on a random leaf) is made of, from random bytes drawn with others.
public enum UUIDVersion7 {
    /// `random` (16 bytes) with the 48-bit big-endian count of Unix milliseconds of `time` first (clamped to 0 before
    /// 1970 and to the field's largest value), the version 7 and the variant `10`: 74 of its bits stay random.
    public static func bytes(random: [UInt8], at time: Date) -> [UInt8] {
        precondition(random.count == 16, "a UUID is 16 bytes")
        var bytes = random
        let largest = Double(UInt64(1) << 48 - 1)
        let milliseconds = UInt64(min(max(0, (time.timeIntervalSince1970 * 1000).rounded(.down)), largest))
        for index in 0..<6 {
            bytes[index] = UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - UInt64(index))))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x70
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return bytes
    }
}
