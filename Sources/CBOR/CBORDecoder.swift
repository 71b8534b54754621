/// A strict CBOR (RFC 8949) decoder for hostile input, built on libcbor's streaming decoder.
///
/// It accepts definite and indefinite lengths, non-shortest integer heads and any map key
/// order, as real authenticators send them. It rejects malformed items, duplicate map keys
/// (at any depth), invalid UTF-8, and anything over its ``CBORLimits``; a declared array or
/// map count is checked against the bytes left before anything is allocated for it.
public struct CBORDecoder: Sendable {
    /// The limits every decode enforces.
    public let limits: CBORLimits

    /// Creates a decoder with the given limits.
    public init(limits: CBORLimits = .default) {
        self.limits = limits
    }

    /// Decodes exactly one data item; any bytes after it fail with `cbor.trailingBytes`.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        try decode(bytes[...])
    }

    /// Decodes exactly one data item; any bytes after it fail with `cbor.trailingBytes`.
    public func decode(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> CBORValue {
        let (value, bytesRead) = try decodeFirst(bytes)
        guard bytesRead == bytes.count else {
            throw CBORError(.trailingBytes, "Bytes follow the data item.")
        }
        return value
    }

    /// Decodes the first data item and reports how many bytes it took; the rest is left unread.
    ///
    /// WebAuthn authenticator data needs this: a COSE key may be followed by an extensions map.
    public func decodeFirst(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (value: CBORValue, bytesRead: Int) {
        guard !bytes.isEmpty else { throw CBORError(.empty, "The input is empty.") }
        guard bytes.count <= limits.maximumInputSize else {
            throw CBORError(.tooLarge, "The input is larger than the limit allows.")
        }
        return try bytes.withUnsafeBufferPointer { buffer throws(CBORError) in
            try decodeFirst(buffer)
        }
    }

    private func decodeFirst(_ buffer: UnsafeBufferPointer<UInt8>) throws(CBORError) -> (value: CBORValue, bytesRead: Int) {
        var builder = CBORStreamBuilder(limits: limits)
        var offset = 0
        while offset < buffer.count {
            let (head, length) = try CBORHead.read(UnsafeBufferPointer(rebasing: buffer[offset...]))
            offset += length
            if let value = try builder.add(head, bytesLeft: buffer.count - offset) {
                return (value, offset)
            }
        }
        throw CBORError(.truncated, "The input ends inside a data item.")
    }
}
