// Target `json-array`: JSONArrayElementReader, the streaming reader of a document's one array that `passkeyd admin
// import` reads Firebase's, Supabase's and Auth0's files with. The first byte chooses the envelope (the array itself, or
// the member "users") and the size of the pieces the rest, the document, is handed over in. Invariants: the elements
// and the verdict do not depend on the pieces; every element is an object no longer than the bound; when the document
// is strict JSON the reader accepted, its elements are exactly the array's, in order.
import JSON

private let maximumElementBytes = 512

private func read(_ document: [UInt8], _ envelope: JSONArrayElementReader.Envelope, pieceBytes: Int) -> [[UInt8]]? {
    var reader = JSONArrayElementReader(envelope: envelope, maximumElementBytes: maximumElementBytes)
    var elements: [[UInt8]] = []
    do throws(JSONArrayElementReader.Failure) {
        var start = 0
        while start < document.count {
            try reader.read(document[start..<min(start + pieceBytes, document.count)]) { elements.append($0) }
            start += pieceBytes
        }
        try reader.finish()
        return elements
    } catch {
        return nil
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = bytes(data, size)
    let envelope: JSONArrayElementReader.Envelope = input[0] & 1 == 0 ? .array : .member("users")
    let document = Array(input.dropFirst())
    let whole = read(document, envelope, pieceBytes: max(document.count, 1))
    let pieces = read(document, envelope, pieceBytes: Int(input[0] >> 1) % 16 + 1)
    guard whole == pieces else { fuzzFailure("the pieces changed what was read") }
    guard let elements = whole else { return 0 }
    for element in elements where element.first != UInt8(ascii: "{") || element.last != UInt8(ascii: "}") || element.count > maximumElementBytes {
        fuzzFailure("an element that is not an object within the bound")
    }
    if let value = StrictJSONParser.strictValue(document) {
        let array: JSONValue? =
            switch envelope {
            case .array: value
            case .member(let name): value.objectValue?[name]
            }
        guard case .array(let items)? = array, items.count == elements.count else { fuzzFailure("the elements are not the array's") }
        for (item, element) in zip(items, elements) where StrictJSONParser.strictValue(element) != item {
            fuzzFailure("an element differs from the array's")
        }
    }
    return 0
}
