// Target `client-data`: CollectedClientData(bytes:) (BOM removal, UTF-8 check, the strict JSON parser, member types)
// and the general StrictJSONParser.parse on the same bytes.
@testable import WebAuthnCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    if let clientData = try? CollectedClientData(bytes: input) {
        _ = clientData.type.utf8.count + clientData.challenge.utf8.count + clientData.origin.utf8.count
    }
    // StrictJSONParser expects valid UTF-8 (CollectedClientData checks before calling it).
    if String(validating: input, as: UTF8.self) != nil {
        _ = try? StrictJSONParser.parse(input[...])
    }
    return 0
}
