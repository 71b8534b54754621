// Target `cose-key`: COSEKey(bytes:) — kty/alg/crv consistency, private-key refusal, OpenSSL key construction —
// then both verify entry points with a signature that must not verify.
import WebAuthnCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    guard let key = try? COSEKey(bytes: input) else { return 0 }
    guard key.encoded == input else { fuzzFailure("COSE key does not keep its encoding") }
    let message = Array("passkeyd fuzz message".utf8)
    let signature = Array(input.suffix(64))
    if key.verify(signature: signature, message: message) || key.verify(signature: signature, over: message, message) {
        fuzzFailure("a fuzzed signature verified")
    }
    return 0
}
