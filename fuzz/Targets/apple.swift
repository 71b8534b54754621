// Target `apple`: the `apple` attestation statement verification procedure. The first byte picks one of the
// registration vectors of fmt `apple` (the W3C/peer one listed first, then every other passing vector, in file
// order); the rest of the input is the CBOR attStmt, spliced into that vector's otherwise valid attestation object,
// which goes through RegistrationCeremony.verify with the vector's client data, trust anchors and verification time.
import WebAuthnCore

private let fixtures = formatFixtures("apple", preferred: ["w3c-l3/apple-es256/registration"])

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    runStatement(fixtures, data, size)
    return 0
}
