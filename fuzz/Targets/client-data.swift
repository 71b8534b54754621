// Target `client-data`: CollectedClientData(bytes:) (BOM removal, UTF-8 check, the strict JSON parser, member types),
// the general StrictJSONParser.parse on the same bytes, and the agreement of PlainClientDataReader with the general
// parser: whatever the plain reader accepts, the general one accepts with the same members.
import JSON

@testable import WebAuthnCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    if let clientData = try? CollectedClientData(bytes: input) {
        _ = clientData.type.utf8.count + clientData.challenge.utf8.count + clientData.origin.utf8.count
    }
    // StrictJSONParser and PlainClientDataReader expect valid UTF-8 (CollectedClientData checks before calling them).
    if String(validating: input, as: UTF8.self) != nil {
        _ = try? StrictJSONParser.parse(input[...])
        if let plain = PlainClientDataReader.members(of: input[...]) {
            let general = (try? StrictJSONParser.parseObjectMembers(input[...])).map(CollectedClientData.Members.init(list:))
            precondition(general == plain, "PlainClientDataReader accepted what the general parser reads otherwise")
        }
    }
    return 0
}
