import CBOR
import CryptoCore
import Foundation
import WebAuthnCore

/// A software WebAuthn authenticator and client in one: it produces the `RegistrationResponseJSON` and
/// `AuthenticationResponseJSON` a browser would send for a credential, for one RP ID and origin, and lets a
/// test change any piece before or after signing (see `RegistrationOptions`, `AssertionOptions`, `ResponseMutation`).
public struct SoftwareAuthenticator: Sendable {
    public var relyingPartyID: String
    public var origin: String

    public init(relyingPartyID: String = "example.com", origin: String = "https://example.com") {
        self.relyingPartyID = relyingPartyID
        self.origin = origin
    }

    /// A registration response for `credential` answering `challenge`.
    public func register(
        _ credential: SoftwareCredential,
        challenge: [UInt8],
        options: RegistrationOptions = RegistrationOptions()
    ) throws -> RegistrationResponseJSON {
        try registrationParts(credential, challenge: challenge, options: options).response
    }

    /// An assertion by `credential` answering `challenge`.
    public func authenticate(
        _ credential: SoftwareCredential,
        challenge: [UInt8],
        options: AssertionOptions = AssertionOptions()
    ) throws -> AuthenticationResponseJSON {
        try assertionParts(credential, challenge: challenge, options: options).response
    }

    public func registrationParts(
        _ credential: SoftwareCredential,
        challenge: [UInt8],
        options: RegistrationOptions = RegistrationOptions()
    ) throws -> RegistrationParts {
        var clientData = options.clientData.encode(challenge: challenge, origin: origin)
        options.mutation.clientDataJSON?(&clientData)
        let clientDataHash = DigestAlgorithm.sha256.hash(clientData)
        let credentialID = options.credentialID ?? credential.id
        let rpIDHash = options.relyingPartyIDHash ?? DigestAlgorithm.sha256.hash(Array(relyingPartyID.utf8))
        var authenticatorData = rpIDHash + [options.flags.rawValue] + Self.bigEndian(options.signCount)
        authenticatorData += options.aaguid + [UInt8(truncatingIfNeeded: credentialID.count >> 8), UInt8(truncatingIfNeeded: credentialID.count)]
        authenticatorData += credentialID + (try options.credentialPublicKey ?? credential.coseKey())
        if let extensions = options.extensions { authenticatorData += CBOREncoder.encode(extensions) }
        authenticatorData += options.trailingBytes
        options.mutation.authenticatorData?(&authenticatorData)

        let signed = authenticatorData + clientDataHash
        var statement: [(String, CBORValue)]
        let format: String
        switch options.attestation {
        case .none:
            format = "none"
            statement = []
        case .packedSelf:
            format = "packed"
            var signature = try credential.sign(signed)
            options.mutation.signature?(&signature)
            statement = [("alg", CBORValue(Int64(credential.algorithm.rawValue))), ("sig", .bytes(signature))]
        case .packed(let certificates):
            format = "packed"
            var signature = try certificates.signingKey.sign(signed, algorithm: certificates.algorithm.signatureAlgorithm)
            options.mutation.signature?(&signature)
            statement = [
                ("alg", CBORValue(Int64(certificates.algorithm.rawValue))), ("sig", .bytes(signature)),
                ("x5c", .array(certificates.chain.map { .bytes($0.der) })),
            ]
        case .fidoU2F(let certificates):
            format = "fido-u2f"
            let coordinates = try? credential.publicKey.ecCoordinates()
            let publicKeyU2F = coordinates.map { [0x04] + $0.x + $0.y } ?? []
            let verificationData = [0x00] + Array(authenticatorData.prefix(32)) + clientDataHash + credentialID + publicKeyU2F
            var signature = try certificates.signingKey.sign(verificationData, algorithm: .ecdsaSHA256)
            options.mutation.signature?(&signature)
            statement = [("sig", .bytes(signature)), ("x5c", .array([.bytes(certificates.leaf.der)]))]
        case .apple(let certificates):
            format = "apple"
            let nonce = DigestAlgorithm.sha256.hash(signed)
            let credentialCertificate = try certificates.credentialCertificate(
                for: credential.publicKey,
                extensions: [AttestationCertificates.appleNonceExtension(nonce)]
            )
            statement = [("x5c", .array([.bytes(credentialCertificate.der), .bytes(certificates.intermediate.der)]))]
        }
        var statementEntries = statement.map { CBORMapEntry(key: .text($0.0), value: $0.1) }
        options.mutation.attestationStatement?(&statementEntries)
        options.mutation.signedAuthenticatorData?(&authenticatorData)
        var attestationObject = CBOREncoder.encode(
            .map([
                CBORMapEntry(key: .text("fmt"), value: .text(options.format ?? format)),
                CBORMapEntry(key: .text("attStmt"), value: .map(statementEntries)),
                CBORMapEntry(key: .text("authData"), value: .bytes(authenticatorData)),
            ])
        )
        options.mutation.attestationObject?(&attestationObject)
        let identifier = Base64URL.encode(credential.id)
        let response = RegistrationResponseJSON(
            id: identifier,
            rawId: identifier,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URL.encode(clientData),
                attestationObject: Base64URL.encode(attestationObject),
                transports: options.transports
            ),
            authenticatorAttachment: "platform",
            clientExtensionResults: try Self.residentKeyReport()
        )
        return RegistrationParts(
            clientDataJSON: clientData,
            authenticatorData: authenticatorData,
            attestationObject: attestationObject,
            response: response
        )
    }

    public func assertionParts(
        _ credential: SoftwareCredential,
        challenge: [UInt8],
        options: AssertionOptions = AssertionOptions()
    ) throws -> AssertionParts {
        var clientData = options.clientData.encode(challenge: challenge, origin: origin)
        options.mutation.clientDataJSON?(&clientData)
        let rpIDHash = options.relyingPartyIDHash ?? DigestAlgorithm.sha256.hash(Array(relyingPartyID.utf8))
        var authenticatorData = rpIDHash + [options.flags.rawValue] + Self.bigEndian(options.signCount)
        if options.includesAttestedCredentialData {
            authenticatorData +=
                RegistrationOptions.testAAGUID + [
                    UInt8(truncatingIfNeeded: credential.id.count >> 8), UInt8(truncatingIfNeeded: credential.id.count),
                ]
            authenticatorData += credential.id + (try credential.coseKey())
        }
        if let extensions = options.extensions { authenticatorData += CBOREncoder.encode(extensions) }
        authenticatorData += options.trailingBytes
        options.mutation.authenticatorData?(&authenticatorData)
        var signature = try credential.sign(authenticatorData + DigestAlgorithm.sha256.hash(clientData))
        options.mutation.signature?(&signature)
        options.mutation.signedAuthenticatorData?(&authenticatorData)
        let identifier = Base64URL.encode(credential.id)
        let userHandle = options.omitsUserHandle ? nil : Base64URL.encode(options.userHandle ?? credential.userHandle)
        let response = AuthenticationResponseJSON(
            id: identifier,
            rawId: identifier,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URL.encode(clientData),
                authenticatorData: Base64URL.encode(authenticatorData),
                signature: Base64URL.encode(signature),
                userHandle: userHandle
            ),
            authenticatorAttachment: "platform"
        )
        return AssertionParts(clientDataJSON: clientData, authenticatorData: authenticatorData, signature: signature, response: response)
    }

    /// `{"credProps":{"rk":true}}`, decoded as a client would send it (the type has no public memberwise initialiser).
    private static func residentKeyReport() throws -> ClientExtensionResults {
        try JSONDecoder().decode(ClientExtensionResults.self, from: Data(#"{"credProps":{"rk":true}}"#.utf8))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }
}
