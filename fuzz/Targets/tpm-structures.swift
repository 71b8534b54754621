// Target `tpm-structures`: the internal TPM 2.0 wire parsers (reached with @testable): TPMS_ATTEST (certInfo) and
// TPMT_PUBLIC (pubArea, strict then lenient scheme reading), and the pubArea ↔ credential key comparison against
// fixed RSA and EC keys. The first byte chooses the structure; the rest is its encoding.
import CryptoCore

@testable import WebAuthnCore

/// Credential keys of the TPM vectors (RSA and EC), to compare parsed pubAreas with.
private let credentialKeys: [PublicKey] = formatFixtures("tpm", preferred: []).compactMap { fixture in
    (try? AuthenticatorData(bytes: fixture.authenticatorData))?.attestedCredentialData?.credentialPublicKey.publicKey
}

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = bytes(data, size)
    let body = Array(input.dropFirst())
    if input[0] & 1 == 0 {
        if let attest = try? TPMSAttest(bytes: body) {
            _ = attest.magic == TPMSAttest.generatedValue && attest.type == TPMSAttest.certifyType
        }
    } else if let publicArea = try? TPMTPublic(bytes: body) {
        guard publicArea.bytes == body else { fuzzFailure("pubArea does not keep its bytes") }
        _ = TPMTPublic.digest(forAlgorithm: publicArea.nameAlgorithm)
        if case .ecc(let curve) = publicArea.parameters { _ = TPMTPublic.curve(forIdentifier: curve) }
        for key in credentialKeys {
            _ = try? TPMAttestation.checkPublicArea(publicArea, describes: key)
        }
    }
    return 0
}
