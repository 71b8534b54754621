import CryptoCore
import Foundation
import TestSupport
import WebAuthnCore

/// What an iPhone hands an app, made by the test suite's software authenticator and Apple stand-in: the raw values of
/// `ASAuthorizationPlatformPublicKeyCredentialRegistration` and `…Assertion`, and Apple identity tokens. One command
/// per JSON line, every binary value unpadded base64url:
///
/// - `{"command": "create", "relyingPartyID", "challenge", "userID"}` → `{"credentialID", "rawClientDataJSON",
///   "rawAttestationObject"}`: a new ES256 passkey, flagged backed up as iCloud Keychain's are, attestation `none`,
///   client data for the origin `https://<relyingPartyID>` as iOS writes it for an app with associated domains.
/// - `{"command": "assert", "relyingPartyID", "challenge", "allowedCredentials": [...]}` → `{"credentialID",
///   "rawClientDataJSON", "rawAuthenticatorData", "signature", "userID"}`: the newest passkey of the RP ID that the
///   list allows (any, when it is empty: discoverable sign-in), its counter increased.
/// - `{"command": "appleToken", "nonce", "subject"?, "email"?}` → `{"identityToken", "authorizationCode"}`: a token
///   signed by the stand-in's key with `nonce` as the app gave it to Apple (`request.nonce`, the hashed one).
/// - `{"command": "googleToken", "nonce", "subject"?, "email"?}` → `{"idToken"}`: an ID token with Google's claims,
///   signed by the Google stand-in's key, with `nonce` as the app gave it to Google (the hashed one).
final class TestDevice {
    /// A command that cannot be answered.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private struct Passkey {
        let relyingPartyID: String
        let credential: SoftwareCredential
        var signCount: UInt32
    }

    private let apple: AppleStandIn
    private let google: GoogleStandIn
    private var passkeys: [Passkey] = []

    init(p8Path: String) throws {
        apple = try AppleStandIn()
        google = try GoogleStandIn()
        try Data(try AppleTestKeys.shared.p8.pem().utf8).write(to: URL(fileURLWithPath: p8Path))
    }

    /// The first line: where the stand-in answers.
    func greeting() -> String {
        Self.line([
            "appleBaseURL": apple.baseURL, "bundleID": AppleTokenMinter.bundleID, "googleDiscoveryURL": google.discoveryURL,
            "googleClientIDs": [GoogleStandIn.webClientID, GoogleStandIn.androidClientID], "googleClientSecret": GoogleStandIn.webClientSecret,
        ])
    }

    /// The answer to one command line.
    func answer(_ line: String) -> String {
        do {
            guard let command = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return Self.line(["error": "a command is a JSON object"])
            }
            switch command["command"] as? String {
            case "create": return Self.line(try create(command))
            case "assert": return Self.line(try assert(command))
            case "appleToken": return Self.line(try appleToken(command))
            case "googleToken": return Self.line(try googleToken(command))
            default: return Self.line(["error": "unknown command"])
            }
        } catch {
            return Self.line(["error": "\(error)"])
        }
    }

    private func create(_ command: [String: Any]) throws -> [String: Any] {
        let relyingPartyID = try Self.text(command, "relyingPartyID")
        let challenge = try Self.bytes(command, "challenge")
        let credential = try SoftwareCredential.generate(.es256, idLength: 20, userHandle: try Self.bytes(command, "userID"))
        let authenticator = SoftwareAuthenticator(relyingPartyID: relyingPartyID, origin: "https://" + relyingPartyID)
        let options = RegistrationOptions(
            flags: [.userPresent, .userVerified, .backupEligible, .backupState, .attestedCredentialData],
            aaguid: [UInt8](repeating: 0, count: 16),
            clientData: ClientDataTemplate(type: "webauthn.create", crossOrigin: nil)
        )
        let parts = try authenticator.registrationParts(credential, challenge: challenge, options: options)
        passkeys.append(Passkey(relyingPartyID: relyingPartyID, credential: credential, signCount: 0))
        return [
            "credentialID": Base64URL.encode(credential.id),
            "rawClientDataJSON": Base64URL.encode(parts.clientDataJSON),
            "rawAttestationObject": Base64URL.encode(parts.attestationObject),
        ]
    }

    private func assert(_ command: [String: Any]) throws -> [String: Any] {
        let relyingPartyID = try Self.text(command, "relyingPartyID")
        let challenge = try Self.bytes(command, "challenge")
        let allowed = try (command["allowedCredentials"] as? [String] ?? []).map { text in
            guard let bytes = Base64URL.decode(text) else { throw Failure("allowedCredentials holds a value that is not base64url") }
            return bytes
        }
        guard
            let index = passkeys.lastIndex(where: {
                $0.relyingPartyID == relyingPartyID && (allowed.isEmpty || allowed.contains($0.credential.id))
            })
        else { throw Failure("no passkey for \(relyingPartyID) matches") }
        passkeys[index].signCount += 1
        let passkey = passkeys[index]
        let authenticator = SoftwareAuthenticator(relyingPartyID: relyingPartyID, origin: "https://" + relyingPartyID)
        let options = AssertionOptions(
            flags: [.userPresent, .userVerified, .backupEligible, .backupState],
            signCount: passkey.signCount,
            clientData: ClientDataTemplate(type: "webauthn.get", crossOrigin: nil)
        )
        let parts = try authenticator.assertionParts(passkey.credential, challenge: challenge, options: options)
        return [
            "credentialID": Base64URL.encode(passkey.credential.id),
            "rawClientDataJSON": Base64URL.encode(parts.clientDataJSON),
            "rawAuthenticatorData": Base64URL.encode(parts.authenticatorData),
            "signature": Base64URL.encode(parts.signature),
            "userID": Base64URL.encode(passkey.credential.userHandle),
        ]
    }

    private func appleToken(_ command: [String: Any]) throws -> [String: Any] {
        var claims = AppleTokenMinter.identityClaims(
            now: Date(),
            rawNonce: "",
            subject: command["subject"] as? String ?? AppleTokenMinter.subject
        )
        claims["nonce"] = try Self.text(command, "nonce")
        if let email = command["email"] as? String { claims["email"] = email }
        return [
            "identityToken": try AppleTokenMinter.sign(claims),
            "authorizationCode": "c." + Base64URL.encode(SystemRandom().bytes(count: 16)),
        ]
    }

    private func googleToken(_ command: [String: Any]) throws -> [String: Any] {
        var claims = GoogleStandIn.claims(
            now: Date(),
            rawNonce: "",
            subject: command["subject"] as? String ?? "110169484474386276334",
            email: command["email"] as? String ?? "person@example.com"
        )
        claims["nonce"] = try Self.text(command, "nonce")
        return ["idToken": try google.sign(claims)]
    }

    private static func text(_ command: [String: Any], _ key: String) throws -> String {
        guard let text = command[key] as? String, !text.isEmpty else { throw Failure("\(key) is missing") }
        return text
    }

    private static func bytes(_ command: [String: Any], _ key: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(try text(command, key)) else { throw Failure("\(key) is not base64url") }
        return bytes
    }

    private static func line(_ object: [String: Any]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }
}
