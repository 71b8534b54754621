import CLibCBOR

/// The head of one data item, as libcbor's streaming decoder reports it.
///
/// String cases point into the input buffer and are valid only while it is.
enum CBORHead {
    case unsigned(UInt64)
    case negative(UInt64)
    case byteString(UnsafeBufferPointer<UInt8>)
    case textString(UnsafeBufferPointer<UInt8>)
    case indefiniteByteString
    case indefiniteTextString
    case array(count: Int)
    case indefiniteArray
    case map(count: Int)
    case indefiniteMap
    case tag(UInt64)
    case float(Double)
    case boolean(Bool)
    case null
    case undefined
    case simple(UInt8)
    case `break`

    /// Reads the head at the start of `input` (which is not empty).
    ///
    /// Returns the head and how many bytes it takes, including a definite string's payload.
    /// `cbor_stream_decode` reads one head per call and never allocates; it only invokes
    /// the callback once the head and any string payload are inside `input`.
    static func read(_ input: UnsafeBufferPointer<UInt8>) throws(CBORError) -> (head: CBORHead, length: Int) {
        if let head = try readHeadUnknownToLibCBOR(input) {
            return head
        }
        var head: CBORHead?
        let result = withUnsafePointer(to: streamCallbacks) { callbacks in
            cbor_stream_decode(input.baseAddress, input.count, callbacks, &head)
        }
        switch result.status {
        case CBOR_DECODER_FINISHED:
            guard let head else { throw CBORError(.malformed, "A data item head could not be decoded.") }
            return (head, result.read)
        case CBOR_DECODER_NEDATA:
            throw CBORError(.truncated, "The input ends inside a data item.")
        default:
            throw CBORError(.malformed, "A data item uses a reserved or invalid encoding.")
        }
    }

    /// libcbor 0.8 rejects tags 6–20 in their one-byte form and every simple value other
    /// than false, true, null and undefined, although RFC 8949 calls them well-formed.
    private static func readHeadUnknownToLibCBOR(_ input: UnsafeBufferPointer<UInt8>) throws(CBORError) -> (head: CBORHead, length: Int)? {
        let initialByte = input[0]
        switch initialByte {
        case 0xC6...0xD4:
            return (.tag(UInt64(initialByte - 0xC0)), 1)
        case 0xE0...0xF3:
            return (.simple(initialByte - 0xE0), 1)
        case 0xF8:
            guard input.count >= 2 else { throw CBORError(.truncated, "The input ends inside a simple value.") }
            // RFC 8949 §3.3: the two-byte form of simple values below 32 is not well-formed.
            guard input[1] >= 32 else { throw CBORError(.malformed, "A simple value below 32 uses the two-byte encoding.") }
            return (.simple(input[1]), 2)
        default:
            return nil
        }
    }
}

/// Stores `head` in the `CBORHead?` that the decoder passed as the callback context.
private func record(_ context: UnsafeMutableRawPointer?, _ head: CBORHead) {
    context.unsafelyUnwrapped.assumingMemoryBound(to: CBORHead?.self).pointee = head
}

/// A string payload, or `nil` (leaving the head unset) for a length that does not fit in `Int`.
private func stringPayload(_ data: UnsafePointer<UInt8>?, _ length: Int) -> UnsafeBufferPointer<UInt8>? {
    guard length >= 0, data != nil || length == 0 else { return nil }
    return UnsafeBufferPointer(start: data, count: length)
}

private let streamCallbacks = cbor_callbacks(
    uint8: { context, value in record(context, .unsigned(UInt64(value))) },
    uint16: { context, value in record(context, .unsigned(UInt64(value))) },
    uint32: { context, value in record(context, .unsigned(UInt64(value))) },
    uint64: { context, value in record(context, .unsigned(value)) },
    negint64: { context, value in record(context, .negative(value)) },
    negint32: { context, value in record(context, .negative(UInt64(value))) },
    negint16: { context, value in record(context, .negative(UInt64(value))) },
    negint8: { context, value in record(context, .negative(UInt64(value))) },
    byte_string_start: { context in record(context, .indefiniteByteString) },
    byte_string: { context, data, length in
        if let payload = stringPayload(data, length) { record(context, .byteString(payload)) }
    },
    string: { context, data, length in
        if let payload = stringPayload(data, length) { record(context, .textString(payload)) }
    },
    string_start: { context in record(context, .indefiniteTextString) },
    indef_array_start: { context in record(context, .indefiniteArray) },
    array_start: { context, count in record(context, .array(count: count)) },
    indef_map_start: { context in record(context, .indefiniteMap) },
    map_start: { context, count in record(context, .map(count: count)) },
    tag: { context, value in record(context, .tag(value)) },
    float2: { context, value in record(context, .float(Double(value))) },
    float4: { context, value in record(context, .float(Double(value))) },
    float8: { context, value in record(context, .float(value)) },
    undefined: { context in record(context, .undefined) },
    null: { context in record(context, .null) },
    boolean: { context, value in record(context, .boolean(value)) },
    indef_break: { context in record(context, .break) }
)
