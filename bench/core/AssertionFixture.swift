import CryptoCore
import Foundation
import WebAuthnCore

/// One signed assertion against a stored credential whose parsed key is cached, as the server keeps it.
struct AssertionFixture {
    let ceremony: AuthenticationCeremony
    let response: AuthenticationResponseJSON
    let expectations: AuthenticationExpectations
    let key: COSEKey
    let signature: [UInt8]
    let signedMessage: [UInt8]
    let reference: ReferenceVerifier?
    let digest: [UInt8]

    init(algorithm: COSEAlgorithm) throws {
        let (privateKey, coseBytes) = try BenchmarkKeys.make(algorithm)
        key = try COSEKey(bytes: coseBytes)
        let challenge = [UInt8](repeating: 7, count: 32)
        let credentialID = [UInt8](repeating: 9, count: 32)
        let userHandle = [UInt8](repeating: 5, count: 32)
        let clientData = Array(
            #"{"type":"webauthn.get","challenge":"\#(Base64URL.encode(challenge))","origin":"https://example.com","crossOrigin":false}"#.utf8
        )
        let authenticatorData = DigestAlgorithm.sha256.hash(Array("example.com".utf8)) + [0x05, 0, 0, 0, 42]
        signedMessage = authenticatorData + DigestAlgorithm.sha256.hash(clientData)
        signature = try privateKey.sign(signedMessage, algorithm: key.algorithm.signatureAlgorithm)
        let scheme = key.algorithm.signatureAlgorithm
        digest = scheme.digest?.hash(signedMessage) ?? []
        reference = scheme.digest == nil ? nil : try ReferenceVerifier(key: key.publicKey, algorithm: scheme)
        response = AuthenticationResponseJSON(
            id: Base64URL.encode(credentialID),
            rawId: Base64URL.encode(credentialID),
            response: .init(
                clientDataJSON: Base64URL.encode(clientData),
                authenticatorData: Base64URL.encode(authenticatorData),
                signature: Base64URL.encode(signature),
                userHandle: Base64URL.encode(userHandle)
            )
        )
        expectations = AuthenticationExpectations(
            challenge: challenge,
            credential: StoredCredential(id: credentialID, publicKey: key, signCount: 41, userHandle: userHandle)
        )
        ceremony = AuthenticationCeremony(relyingParty: RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"]))
    }

    /// OpenSSL alone: a reused context and a precomputed digest (`openssl speed`'s method); EdDSA hashes inside
    /// the signature scheme, so its reference is one EVP_DigestVerify over the message.
    func rawVerify() -> Bool {
        if let reference { return reference.verify(signature: signature, digest: digest) }
        return key.publicKey.verify(signature: signature, message: signedMessage, algorithm: key.algorithm.signatureAlgorithm)
    }

    func ceremonyVerify() -> Bool {
        (try? ceremony.verify(response, expecting: expectations)) != nil
    }
}
