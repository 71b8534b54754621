import CryptoCore
import Foundation
import Storage
import TestSupport
import WebAuthnCore

@testable import RelyingPartyServer

/// Fills a store as a release's users would, through the HTTP API of `UpgradeNode`: an account per passkey algorithm
/// (registered, then signed in again), recovery codes (one spent), an Apple-only account and an Apple identity linked to
/// a passkey account (both with refresh tokens from their authorization codes), a grant of the OpenID provider, and
/// webhook deliveries left pending (503) and dead (410). Returns what the devices, the app and the backend kept.
struct UpgradeFixtureWriter {
    static let appleOnlySubject = "000111.upgrade0apple0only.0001"
    static let appleLinkedSubject = "000222.upgrade0apple0linked.0002"

    let node: UpgradeNode

    func write(release: String, commit: String, driver: String) throws -> UpgradeManifest {
        try node.server.startWebhooks()
        var accounts: [UpgradeManifest.PasskeyAccount] = []
        for (name, algorithm) in UpgradeNode.algorithms {
            accounts.append(try passkeyAccount("passkey-" + name.lowercased(), algorithm: algorithm))
        }
        let recovery = try recoveryCodes(of: accounts[0])
        let linkedTo = accounts[1]
        let appleOnly = try appleSignIn(Self.appleOnlySubject, code: "c.upgrade-only", headers: [])
        let appleLinked = try appleSignIn(Self.appleLinkedSubject, code: "c.upgrade-linked", headers: PasskeyClient.bearer(linkedTo.sessionTokens[0]))
        guard appleLinked.userID == linkedTo.userID else { throw TransportFailure("the Apple identity was not linked to \(linkedTo.username)") }
        let refreshTokens = try appleRefreshTokens()
        let openID = try openIDGrant(accounts[3])
        let webhooks = try settleWebhooks()
        node.server.stopWebhooks()
        return UpgradeManifest(
            release: release,
            commit: commit,
            driver: driver,
            writtenAt: node.clock.now.timeIntervalSince1970,
            passkeyAccounts: accounts,
            appleAccounts: [
                UpgradeManifest.AppleAccount(
                    subject: Self.appleOnlySubject,
                    userID: appleOnly.userID,
                    sessionToken: appleOnly.token,
                    refreshToken: try refreshToken(refreshTokens, code: "c.upgrade-only"),
                    linkedTo: nil
                ),
                UpgradeManifest.AppleAccount(
                    subject: Self.appleLinkedSubject,
                    userID: appleLinked.userID,
                    sessionToken: appleLinked.token,
                    refreshToken: try refreshToken(refreshTokens, code: "c.upgrade-linked"),
                    linkedTo: linkedTo.username
                ),
            ],
            recovery: recovery,
            openID: openID,
            webhooks: webhooks
        )
    }

    /// Registers `username` with a passkey of `algorithm`, then signs in with it once more.
    private func passkeyAccount(_ username: String, algorithm: COSEAlgorithm) throws -> UpgradeManifest.PasskeyAccount {
        let client = node.client
        let optionsReply = try client.registrationOptions(username: username)
        guard optionsReply.status == 200 else { throw TransportFailure("options for \(username): \(optionsReply.text)") }
        let options = try optionsReply.decode(PublicKeyCredentialCreationOptionsJSON.self)
        let credential = try SoftwareCredential.generate(algorithm, userHandle: try PasskeyClient.bytes(options.user.id))
        let registration = try client.registrationVerify(
            try client.authenticator.register(credential, challenge: try PasskeyClient.bytes(options.challenge))
        )
        let signIn = try client.signIn(credential, AssertionOptions(signCount: 1))
        var sessions: [String] = []
        var accessTokens: [UpgradeManifest.AccessToken] = []
        for reply in [registration, signIn] {
            guard reply.status == 200, let token = reply.object["token"] as? String, let accessToken = reply.object["accessToken"] as? String else {
                throw TransportFailure("\(username): \(reply.status) \(reply.text)")
            }
            sessions.append(token)
            accessTokens.append(UpgradeManifest.AccessToken(token: accessToken, expiresAt: try Self.expiry(accessToken)))
        }
        return UpgradeManifest.PasskeyAccount(
            username: username,
            userID: Base64URL.encode(credential.userHandle),
            credential: UpgradeManifest.Credential(
                algorithm: algorithm.rawValue,
                id: Base64URL.encode(credential.id),
                privateKeyPEM: try credential.privateKey.pem(),
                signCount: 1
            ),
            sessionTokens: sessions,
            accessTokens: accessTokens
        )
    }

    /// A set of recovery codes for `account`, its first one spent.
    private func recoveryCodes(of account: UpgradeManifest.PasskeyAccount) throws -> UpgradeManifest.Recovery {
        let reply = try node.client.send("POST", "/me/recovery-codes", headers: PasskeyClient.bearer(account.sessionTokens[0]))
        guard reply.status == 200, let codes = reply.object["codes"] as? [String], codes.count > 1 else {
            throw TransportFailure("recovery codes: \(reply.status) \(reply.text)")
        }
        let used = try node.recover(account.username, code: codes[0])
        guard used.status == 200 else { throw TransportFailure("recovery: \(used.status) \(used.text)") }
        return UpgradeManifest.Recovery(username: account.username, used: codes[0], unused: Array(codes.dropFirst()))
    }

    /// Signs in with Apple as `subject`, handing over the authorization code `code`.
    private func appleSignIn(_ subject: String, code: String, headers: [(String, String)]) throws -> (userID: String, token: String) {
        let reply = try node.apple.signInFresh(subject: subject, extra: ["authorizationCode": code], headers: headers)
        guard let token = reply.object["token"] as? String else { throw TransportFailure("apple sign-in: \(reply.text)") }
        return (Base64URL.encode(try AppleFixture.userID(reply)), token)
    }

    /// Exchanges the authorization codes handed over; the refresh token the stand-in issued for each code.
    private func appleRefreshTokens() throws -> [String: String] {
        node.server.processDueAppleWork()
        let exchanges = node.apple.standIn.calls(to: "/auth/token").filter { $0.form["grant_type"] == "authorization_code" }
        let issued = node.apple.standIn.issuedRefreshTokens
        guard exchanges.count == issued.count else { throw TransportFailure("\(exchanges.count) code exchanges, \(issued.count) refresh tokens") }
        return Dictionary(uniqueKeysWithValues: zip(exchanges.map { $0.form["code"] ?? "" }, issued))
    }

    private func refreshToken(_ tokens: [String: String], code: String) throws -> String {
        guard let token = tokens[code] else { throw TransportFailure("the code \(code) was not exchanged") }
        return token
    }

    /// An authorization of the OpenID provider's public client by `account` (signed in by its session cookie) and the
    /// code exchanged for tokens.
    private func openIDGrant(_ account: UpgradeManifest.PasskeyAccount) throws -> UpgradeManifest.OpenIDGrant {
        let query = OpenIDProviderTests.authorizeQuery(client: UpgradeNode.openIDClient, redirect: UpgradeNode.redirectURI)
        let authorized = try node.client.send(
            "GET",
            "/oauth/authorize?" + query,
            headers: [("Cookie", "__Host-passkeyd_session=\(account.sessionTokens[0])")]
        )
        guard let code = OpenIDProviderTests.parameters(authorized)["code"] else {
            throw TransportFailure("authorize: \(authorized.status) \(authorized.headers["Location"] ?? authorized.text)")
        }
        let exchanged = try node.token([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", UpgradeNode.redirectURI),
            ("code_verifier", OpenIDProviderTests.verifier), ("client_id", UpgradeNode.openIDClient),
        ])
        guard exchanged.status == 200, let refreshToken = exchanged.object["refresh_token"] as? String,
            let accessToken = exchanged.object["access_token"] as? String
        else { throw TransportFailure("code exchange: \(exchanged.status) \(exchanged.text)") }
        return UpgradeManifest.OpenIDGrant(
            clientID: UpgradeNode.openIDClient,
            username: account.username,
            refreshToken: refreshToken,
            accessToken: UpgradeManifest.AccessToken(token: accessToken, expiresAt: try Self.expiry(accessToken))
        )
    }

    /// Lets the workers attempt what is due until every delivery to the dead endpoint is dead (410) and the pending
    /// endpoint's receiver has refused at least one; what is left.
    private func settleWebhooks() throws -> UpgradeManifest.Webhooks {
        node.server.wakeWebhooks()
        try UpgradeNode.wait("every delivery to \(UpgradeNode.deadEndpoint) dead") {
            try node.deliveries(.pending, to: UpgradeNode.deadEndpoint).isEmpty && node.receiver.requestCount > 0
        }
        let pending = try node.deliveries(.pending, to: UpgradeNode.pendingEndpoint)
        let dead = try node.deliveries(.dead, to: UpgradeNode.deadEndpoint)
        guard !pending.isEmpty, pending.count == dead.count, node.receiver.received.isEmpty else {
            throw TransportFailure("webhooks: \(pending.count) pending, \(dead.count) dead, \(node.receiver.received.count) delivered")
        }
        return UpgradeManifest.Webhooks(
            pendingEndpoint: UpgradeNode.pendingEndpoint,
            pending: try pending.map { try node.publicEventIDs()[$0.eventID] ?? "" },
            deadEndpoint: UpgradeNode.deadEndpoint,
            dead: dead.count
        )
    }

    /// A JWS's `exp`.
    static func expiry(_ token: String) throws -> Double {
        guard let expiry = (try DecodedToken(token).claims["exp"] as? NSNumber)?.doubleValue else { throw TransportFailure("no exp in \(token)") }
        return expiry
    }
}
