// Target `cbor`: CBORDecoder.decode and decodeFirst on arbitrary bytes, with two invariants:
// decodeFirst's item decodes on its own to the same value, and every decoded value survives
// encode → decode unchanged (CBOREncoder's preferred serialization must be accepted by the strict decoder).
import CBOR

private func containsNaN(_ value: CBORValue) -> Bool {
    switch value {
    case .float(let number): number.isNaN
    case .array(let elements): elements.contains(where: containsNaN)
    case .map(let entries): entries.contains { containsNaN($0.key) || containsNaN($0.value) }
    case .tagged(_, let content): containsNaN(content)
    default: false
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    let decoder = CBORDecoder()
    let whole = try? decoder.decode(input)
    if let (first, length) = try? decoder.decodeFirst(input[...]) {
        guard length > 0, length <= input.count else { fuzzFailure("decodeFirst read \(length) of \(input.count) bytes") }
        guard let alone = try? decoder.decode(input[..<length]) else { fuzzFailure("the first item does not decode on its own") }
        guard containsNaN(first) || alone == first else { fuzzFailure("the first item decodes differently on its own") }
        if length == input.count, !containsNaN(first), whole != first { fuzzFailure("decode and decodeFirst disagree") }
    } else if whole != nil {
        fuzzFailure("decode succeeded where decodeFirst failed")
    }
    if let value = whole {
        let encoded = CBOREncoder.encode(value)
        guard let again = try? decoder.decode(encoded) else { fuzzFailure("a decoded value does not survive re-encoding") }
        guard containsNaN(value) || again == value else { fuzzFailure("re-encoding changed a decoded value") }
    }
    return 0
}
