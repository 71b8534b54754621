import CryptoCore
import Foundation
import TestSupport
import WebAuthnCore

/// A browser-like client: drives the ceremonies through a `Transport`, with a `SoftwareAuthenticator` signing
/// in-process. Its methods return the server's replies so that tests check every status themselves.
struct PasskeyClient {
    static let relyingPartyID = "example.com"
    static let origin = "https://example.com"

    let transport: any Transport
    var authenticator = SoftwareAuthenticator(relyingPartyID: PasskeyClient.relyingPartyID, origin: PasskeyClient.origin)

    init(_ transport: any Transport) {
        self.transport = transport
    }

    /// A registered passkey and the session its registration started.
    struct Account {
        let username: String
        let userID: [UInt8]
        let credential: SoftwareCredential
        let token: String
    }

    func send(_ method: String, _ path: String, json: [UInt8]? = nil, headers: [(String, String)] = []) throws -> ServerReply {
        try transport.send(method, path, body: json, headers: headers)
    }

    func post(_ path: String, _ value: some Encodable, headers: [(String, String)] = []) throws -> ServerReply {
        try send("POST", path, json: Array(try JSONEncoder().encode(value)), headers: headers)
    }

    static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    // MARK: registration

    func registrationOptions(username: String?, headers: [(String, String)] = []) throws -> ServerReply {
        try post("/webauthn/registration/options", username.map { ["username": $0] } ?? [:], headers: headers)
    }

    /// A credential for the user the options name, and the registration response answering them.
    func answer(
        _ options: PublicKeyCredentialCreationOptionsJSON,
        registration: RegistrationOptions = RegistrationOptions()
    ) throws
        -> (credential: SoftwareCredential, response: RegistrationResponseJSON)
    {
        let userID = try Self.bytes(options.user.id)
        let credential = try SoftwareCredential.generate(.es256, userHandle: userID)
        let response = try authenticator.register(credential, challenge: try Self.bytes(options.challenge), options: registration)
        return (credential, response)
    }

    func registrationVerify(_ response: RegistrationResponseJSON, headers: [(String, String)] = []) throws -> ServerReply {
        try post("/webauthn/registration/verify", response, headers: headers)
    }

    /// Registers a new account; throws unless every step succeeds.
    func register(_ username: String) throws -> Account {
        let optionsReply = try registrationOptions(username: username)
        guard optionsReply.status == 200 else { throw TransportFailure("registration options: \(optionsReply.status) \(optionsReply.text)") }
        let options = try optionsReply.decode(PublicKeyCredentialCreationOptionsJSON.self)
        let (credential, response) = try answer(options)
        let verifyReply = try registrationVerify(response)
        guard verifyReply.status == 200, let token = verifyReply.object["token"] as? String else {
            throw TransportFailure("registration verify: \(verifyReply.status) \(verifyReply.text)")
        }
        return Account(username: username, userID: credential.userHandle, credential: credential, token: token)
    }

    /// Adds a passkey to the signed-in account; throws unless every step succeeds.
    func addPasskey(token: String) throws -> SoftwareCredential {
        let optionsReply = try registrationOptions(username: nil, headers: Self.bearer(token))
        guard optionsReply.status == 200 else { throw TransportFailure("registration options: \(optionsReply.status) \(optionsReply.text)") }
        let (credential, response) = try answer(try optionsReply.decode(PublicKeyCredentialCreationOptionsJSON.self))
        let verifyReply = try registrationVerify(response, headers: Self.bearer(token))
        guard verifyReply.status == 200 else { throw TransportFailure("registration verify: \(verifyReply.status) \(verifyReply.text)") }
        return credential
    }

    // MARK: authentication

    func authenticationOptions(username: String?) throws -> ServerReply {
        try post("/webauthn/authentication/options", username.map { ["username": $0] } ?? [:])
    }

    /// Fresh request options; throws unless the server issued them.
    func requestOptions(username: String? = nil) throws -> PublicKeyCredentialRequestOptionsJSON {
        let reply = try authenticationOptions(username: username)
        guard reply.status == 200 else { throw TransportFailure("authentication options: \(reply.status) \(reply.text)") }
        return try reply.decode(PublicKeyCredentialRequestOptionsJSON.self)
    }

    /// An assertion by `credential` answering `options`.
    func assertion(
        _ credential: SoftwareCredential,
        answering options: PublicKeyCredentialRequestOptionsJSON,
        _ assertion: AssertionOptions = AssertionOptions(signCount: 0)
    ) throws -> AuthenticationResponseJSON {
        try authenticator.authenticate(credential, challenge: try Self.bytes(options.challenge), options: assertion)
    }

    func authenticationVerify(_ response: AuthenticationResponseJSON) throws -> ServerReply {
        try post("/webauthn/authentication/verify", response)
    }

    /// Options, assertion and verify in one go.
    func signIn(
        _ credential: SoftwareCredential,
        username: String? = nil,
        _ assertion: AssertionOptions = AssertionOptions(signCount: 0)
    ) throws -> ServerReply {
        let options = try requestOptions(username: username)
        return try authenticationVerify(try self.assertion(credential, answering: options, assertion))
    }

    static func bytes(_ base64URL: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(base64URL) else { throw TransportFailure("\(base64URL) is not base64url") }
        return bytes
    }
}
