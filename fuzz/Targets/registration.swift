// Target `registration`: RegistrationCeremony.verify on a RegistrationResponseJSON whose attestationObject is the
// fuzz input, with the fixed client data, challenge, RP ID (example.org) and trust anchor (the W3C attestation root)
// of the W3C packed-es256 vector. id/rawId are set to the credential ID the input's authenticator data attests
// (when it parses), so that attestation objects of every W3C vector, and mutations of them, get past the rawId
// check into their format's procedure and the certificate path code.
import CryptoCore
import WebAuthnCore

private let fixture = RegistrationFixture("w3c-l3/packed-es256/registration", trustAnchors: Vectors.w3cRoot)

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    var credential = fixture.response
    if let attested = (try? AttestationObject(bytes: input))?.authenticatorData.attestedCredentialData {
        credential.id = Base64URL.encode(attested.credentialID)
        credential.rawId = credential.id
    }
    credential.response.attestationObject = Base64URL.encode(input)
    if let result = try? fixture.ceremony.verify(credential, expecting: fixture.expectations) {
        checkTrust(result, fixture.expectations)
    }
    return 0
}
