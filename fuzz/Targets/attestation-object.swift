// Target `attestation-object`: AttestationObject(bytes:) — strict CBOR decode, fmt/attStmt/authData shape, and the
// authenticator data and COSE key inside.
import WebAuthnCore

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let object = try? AttestationObject(bytes: bytes(data, size)) {
        _ = object.authenticatorData.attestedCredentialData?.aaguidString
        _ = object.format.utf8.count
    }
    return 0
}
