import Foundation

extension RandomSource {
    /// A random UUID (version 4, RFC 9562 §5.4) from this source's bytes.
    public func uuid() -> UUID {
        var bytes = self.bytes(count: 16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return Self.uuid(bytes)
    }

    /// The UUID of 16 bytes whose version and variant are set.
    static func uuid(_ bytes: [UInt8]) -> UUID {
        UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }
}
