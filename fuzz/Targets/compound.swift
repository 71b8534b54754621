// Target `compound`: the `compound` format (§8.9). The first byte picks one of the W3C packed registration vectors;
// the rest of the input is the CBOR attStmt (an array of {fmt, attStmt} maps), spliced with fmt "compound" into that
// vector's attestation object, so each contained statement runs its own format's procedure against the vector's
// authenticator data, client data and trust anchors.
import WebAuthnCore

private let fixtures = ["es256", "es384", "es512", "rs256", "eddsa", "ed448"].map { RegistrationFixture("w3c-l3/packed-\($0)/registration") }

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    runStatement(fixtures, format: "compound", data, size)
    return 0
}
