import CBOR
import CryptoCore
import JSON
import WebAuthnCore

/// The load generator's own minimal authenticator: one ES256 key, `none` attestation, UP+UV, counter 0.
struct LoadgenCredential: Sendable {
    static let relyingPartyID = "example.com"
    static let origin = "https://example.com"

    let privateKey: PrivateKey
    let id: [UInt8]
    let userHandle: [UInt8]

    init(userHandle: [UInt8]) throws {
        privateKey = try PrivateKey.generateEC(.p256)
        id = SystemRandom().bytes(count: 32)
        self.userHandle = userHandle
    }

    /// `key`'s private key under another credential ID and user handle: the attack load's forged assertions.
    init(key: LoadgenCredential, id: [UInt8], userHandle: [UInt8]) {
        privateKey = key.privateKey
        self.id = id
        self.userHandle = userHandle
    }

    private var relyingPartyIDHash: [UInt8] { DigestAlgorithm.sha256.hash(Array(Self.relyingPartyID.utf8)) }

    private static func clientData(_ type: String, _ challenge: String) -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(challenge)","origin":"\#(origin)","crossOrigin":false}"#.utf8)
    }

    /// The COSE_Key of the public key (EC2, ES256, P-256).
    func coseKey() throws -> [UInt8] {
        let (xCoordinate, yCoordinate) = try privateKey.publicKey().ecCoordinates()
        return CBOREncoder.encode(
            .map([
                .init(key: CBORValue(1), value: CBORValue(2)), .init(key: CBORValue(3), value: CBORValue(-7)),
                .init(key: CBORValue(-1), value: CBORValue(1)), .init(key: CBORValue(-2), value: .bytes(xCoordinate)),
                .init(key: CBORValue(-3), value: .bytes(yCoordinate)),
            ])
        )
    }

    func registration(challenge: String) throws -> RegistrationResponseJSON {
        let flags: UInt8 = 0x45  // UP, UV, AT
        let authenticatorData =
            relyingPartyIDHash + [flags, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 16)
            + [UInt8(id.count >> 8), UInt8(id.count & 0xFF)] + id + (try coseKey())
        let attestationObject = CBOREncoder.encode(
            .map([
                .init(key: .text("fmt"), value: .text("none")), .init(key: .text("attStmt"), value: .map([])),
                .init(key: .text("authData"), value: .bytes(authenticatorData)),
            ])
        )
        let identifier = Base64URL.encode(id)
        return RegistrationResponseJSON(
            id: identifier,
            rawId: identifier,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URL.encode(Self.clientData("webauthn.create", challenge)),
                attestationObject: Base64URL.encode(attestationObject),
                transports: ["internal"]
            )
        )
    }

    /// `assertion(challenge:)` as the JSON text `JSONEncoder` writes for it (members in another order), written
    /// directly.
    func assertionBody(challenge: String) throws -> [UInt8] {
        let assertion = try assertion(challenge: challenge)
        var object = JSONObjectWriter(capacity: 768)
        object.add("id", assertion.id)
        object.add("rawId", assertion.rawId)
        object.add("type", assertion.type)
        object.add("response") { response in
            response.add("clientDataJSON", assertion.response.clientDataJSON)
            response.add("authenticatorData", assertion.response.authenticatorData)
            response.add("signature", assertion.response.signature)
            if let userHandle = assertion.response.userHandle { response.add("userHandle", userHandle) }
        }
        return object.finished()
    }

    func assertion(challenge: String) throws -> AuthenticationResponseJSON {
        let clientData = Self.clientData("webauthn.get", challenge)
        let authenticatorData = relyingPartyIDHash + [0x05, 0, 0, 0, 0]  // UP, UV; counter 0 (0 after 0 is allowed)
        let signature = try privateKey.sign(authenticatorData + DigestAlgorithm.sha256.hash(clientData), algorithm: .ecdsaSHA256)
        let identifier = Base64URL.encode(id)
        return AuthenticationResponseJSON(
            id: identifier,
            rawId: identifier,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URL.encode(clientData),
                authenticatorData: Base64URL.encode(authenticatorData),
                signature: Base64URL.encode(signature),
                userHandle: Base64URL.encode(userHandle)
            )
        )
    }
}
