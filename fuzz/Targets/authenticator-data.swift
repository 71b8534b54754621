// Target `authenticator-data`: AuthenticatorData(bytes:) — fixed 37 bytes, attested credential data, COSE key via
// decodeFirst, extensions map, and the AT/ED flags' exact agreement with what follows.
import WebAuthnCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    if let parsed = try? AuthenticatorData(bytes: input) {
        guard parsed.bytes == input, parsed.rpIDHash.count == 32 else { fuzzFailure("authenticator data does not keep its bytes") }
        guard (parsed.attestedCredentialData != nil) == parsed.flags.contains(.attestedCredentialData),
            (parsed.extensions != nil) == parsed.flags.contains(.extensionData)
        else { fuzzFailure("AT/ED flags disagree with the parsed content") }
        if let attested = parsed.attestedCredentialData {
            guard attested.aaguid.count == 16 else { fuzzFailure("AAGUID is not 16 bytes") }
            _ = attested.aaguidString
        }
    }
    return 0
}
