import Foundation
import XCTest

@testable import PasskeydClient

/// The client against a real `passkeyd serve`, the device playing the iPhone: every value passes through the client's
/// mapping as it does in an app (options → Platform…Request → authenticator → Platform… → JSON → verify).
final class LiveServerTests: XCTestCase {
    private var server: LoopbackServer!

    override func setUpWithError() throws {
        server = try LoopbackServer()
    }

    override func tearDown() {
        if testRun?.hasSucceeded == false, let server { print("passkeyd's log:\n" + server.log) }
        server?.stop()
        server = nil
    }

    private func client(_ store: InMemoryTokenStore = InMemoryTokenStore()) -> PasskeydClient {
        PasskeydClient(baseURL: server.baseURL, tokenStore: store)
    }

    /// Creates an account with a passkey the way an app does; returns the registration's answer.
    private func signUp(_ client: PasskeydClient, _ username: String, displayName: String? = nil) async throws -> SignInResult {
        let request = try PlatformRegistrationRequest(try await client.registrationOptions(username: username, displayName: displayName))
        return try await client.register(try server.device.create(request))
    }

    private func expectError(
        _ code: PasskeydError.Code,
        status: Int?,
        file: StaticString = #filePath,
        line: UInt = #line,
        _ body: () async throws -> Void
    ) async -> PasskeydError? {
        do {
            try await body()
            XCTFail("expected \(code.rawValue), got success", file: file, line: line)
        } catch let error as PasskeydError {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            XCTAssertEqual(error.status, status, file: file, line: line)
            return error
        } catch {
            XCTFail("expected a PasskeydError, got \(error)", file: file, line: line)
        }
        return nil
    }

    func testRegistrationSignInAndPasskeyManagement() async throws {
        let store = InMemoryTokenStore()
        let client = client(store)

        // Registration: the mapping gives the platform the options' exact values.
        let options = try await client.registrationOptions(username: "ada", displayName: "Ada Lovelace")
        let request = try PlatformRegistrationRequest(options)
        XCTAssertEqual(request.relyingPartyIdentifier, "example.com")
        XCTAssertEqual(request.name, "ada")
        XCTAssertEqual(request.displayName, "Ada Lovelace")
        XCTAssertEqual(Base64URL.encode(request.challenge), options.challenge)
        XCTAssertEqual(request.challenge.count, 32)
        XCTAssertEqual(Base64URL.encode(request.userID), options.user.id)
        XCTAssertEqual(request.userVerificationPreference, "preferred")
        XCTAssertEqual(request.excludedCredentials, [])
        let registration = try server.device.create(request)
        let registered = try await client.register(registration)
        XCTAssertEqual(registered.verified, true)
        XCTAssertEqual(registered.credentialId, Base64URL.encode(registration.credentialID))
        XCTAssertEqual(registered.user.username, "ada")
        XCTAssertEqual(registered.user.displayName, "Ada Lovelace")
        XCTAssertEqual(registered.user.id, options.user.id)
        XCTAssertEqual(try store.load()?.token, registered.token)
        XCTAssertTrue(client.isSignedIn)

        let account = try await client.account()
        XCTAssertEqual(account.rpId, "example.com")
        XCTAssertEqual(account.user, registered.user)
        XCTAssertEqual(account.passkeys.count, 1)
        XCTAssertEqual(account.passkeys[0].algorithm, -7)
        XCTAssertTrue(account.passkeys[0].backupEligible)
        XCTAssertTrue(account.passkeys[0].backupState)
        XCTAssertEqual(account.passkeys[0].aaguid, "00000000-0000-0000-0000-000000000000")
        XCTAssertEqual(account.signInMethods.passkeys, 1)
        XCTAssertNil(account.pendingEmail, "no address pending")

        // Signed out, then in by username: allowCredentials names the passkey.
        try await client.signOut()
        XCTAssertFalse(client.isSignedIn)
        _ = await expectError(.notSignedIn, status: 401) { _ = try await client.account() }
        let byName = try PlatformAssertionRequest(try await client.authenticationOptions(username: "ada"))
        XCTAssertEqual(byName.relyingPartyIdentifier, "example.com")
        XCTAssertEqual(byName.allowedCredentials, [registration.credentialID])
        let assertion = try server.device.assert(byName)
        XCTAssertEqual(assertion.userID.map(Base64URL.encode), registered.user.id)
        let signedIn = try await client.signIn(assertion)
        XCTAssertEqual(signedIn.user.id, registered.user.id)
        XCTAssertEqual(signedIn.credentialId, registered.credentialId)
        XCTAssertNotEqual(signedIn.token, registered.token)

        // Discoverable: no username, no allowed credentials, the authenticator picks the passkey.
        try await client.signOut()
        let discoverable = try PlatformAssertionRequest(try await client.authenticationOptions())
        XCTAssertEqual(discoverable.allowedCredentials, [])
        let again = try await client.signIn(try server.device.assert(discoverable))
        XCTAssertEqual(again.user.id, registered.user.id)

        // A second passkey while signed in: the first is excluded.
        let addOptions = try PlatformRegistrationRequest(try await client.registrationOptions())
        XCTAssertEqual(addOptions.userID, request.userID)
        XCTAssertEqual(addOptions.excludedCredentials, [registration.credentialID])
        let second = try server.device.create(addOptions)
        let added = try await client.register(second)
        XCTAssertEqual(added.user.id, registered.user.id)

        // Management.
        let secondID = Base64URL.encode(second.credentialID)
        try await client.renamePasskey(id: secondID, to: "Work iPhone")
        let passkeys = try await client.passkeys()
        XCTAssertEqual(Set(passkeys.map(\.id)), [registered.credentialId!, secondID])
        XCTAssertEqual(passkeys.first { $0.id == secondID }?.name, "Work iPhone")
        XCTAssertNotNil(passkeys.first { $0.id == registered.credentialId }?.lastUsedAt)
        try await client.deletePasskey(id: secondID)
        _ = await expectError(.passkeyNotFound, status: 404) { try await client.deletePasskey(id: secondID) }
        _ = await expectError(.lastCredential, status: 409) { try await client.deletePasskey(id: registered.credentialId!) }
        let value1 = try await client.passkeys().count
        XCTAssertEqual(value1, 1)

        // Deleting the account drops the session; the username is free again.
        try await client.deleteAccount()
        XCTAssertFalse(client.isSignedIn)
        XCTAssertNil(try store.load())
        _ = try await signUp(client, "ada")
    }

    func testSessionsAndRecovery() async throws {
        let phone = client()
        let account = try await signUp(phone, "hedy")
        let laptop = client()
        _ = try await laptop.signIn(try server.device.assert(try PlatformAssertionRequest(try await laptop.authenticationOptions())))
        XCTAssertNotNil(account.accessToken)
        let minted = try await phone.accessToken()
        XCTAssertEqual(minted.tokenType, "Bearer")
        XCTAssertNotEqual(minted.accessToken, account.accessToken)
        XCTAssertGreaterThan(minted.accessTokenExpiresAt, Date())
        let sessions = try await phone.sessions()
        XCTAssertEqual(sessions.count, 2)
        XCTAssertEqual(sessions.filter { $0.current == true }.count, 1)
        let other = try XCTUnwrap(sessions.first { $0.current != true })
        try await phone.revokeSession(id: other.id)
        _ = await expectError(.notSignedIn, status: 401) { _ = try await laptop.account() }
        _ = await expectError(.sessionNotFound, status: 404) { try await phone.revokeSession(id: other.id) }
        let revoked = try await phone.revokeOtherSessions()
        XCTAssertEqual(revoked, 0)

        // Recovery: ten codes; one gives a restricted session that may only add a passkey.
        let codes = try await phone.createRecoveryCodes()
        XCTAssertEqual(codes.count, 10)
        let recovering = client()
        _ = await expectError(.recoveryCodeInvalid, status: 401) {
            _ = try await recovering.signInWithRecoveryCode(username: "hedy", code: "wrong-code")
        }
        let restricted = try await recovering.signInWithRecoveryCode(username: "hedy", code: codes[0])
        XCTAssertEqual(restricted.restricted, true)
        XCTAssertNil(restricted.accessToken, "a restricted session gets no access token")
        XCTAssertEqual(restricted.user.id, account.user.id)
        _ = await expectError(.recoverySessionRestricted, status: 403) { _ = try await recovering.passkeys() }
        let added = try await recovering.register(
            try server.device.create(try PlatformRegistrationRequest(try await recovering.registrationOptions()))
        )
        XCTAssertEqual(added.user.id, account.user.id)
        let passkeys = try await recovering.passkeys()
        XCTAssertEqual(passkeys.count, 2)
        _ = await expectError(.recoveryCodeInvalid, status: 401) {
            _ = try await self.client().signInWithRecoveryCode(username: "hedy", code: codes[0])
        }
    }

    func testSignInWithApple() async throws {
        let client = client()
        let nonce = try await client.appleNonce()
        XCTAssertGreaterThan(nonce.expiresAt, Date())
        XCTAssertEqual(nonce.hashed.count, 64)
        // Apple gets the hash and puts it in the token; passkeyd hashes the raw nonce and compares.
        let apple = try server.device.appleSignIn(hashedNonce: nonce.hashed, subject: "001111.apple.0001")
        var name = PersonNameComponents()
        name.givenName = "Grace"
        name.familyName = "Hopper"
        let exchange = try AppleSignInExchange(
            identityToken: apple.identityToken,
            authorizationCode: apple.authorizationCode,
            fullName: name,
            nonce: nonce
        )
        XCTAssertEqual(exchange.rawNonce, nonce.raw)
        let signedIn = try await client.signInWithApple(exchange)
        XCTAssertEqual(signedIn.isNewAccount, true)
        XCTAssertEqual(signedIn.appleUserID, "001111.apple.0001")
        XCTAssertEqual(signedIn.user.displayName, "Grace Hopper")
        XCTAssertTrue(client.isSignedIn)
        let account = try await client.account()
        XCTAssertEqual(account.signInMethods.apple.map(\.appleUserID), ["001111.apple.0001"])
        XCTAssertEqual(account.passkeys, [])

        // The same nonce and token again: refused, once only.
        _ = await expectError(.invalidIdentityToken, status: 401) { _ = try await client.signInWithApple(exchange) }

        // A later sign-in without the name (Apple sends it once) lands in the same account, name kept.
        let other = PasskeydClient(baseURL: server.baseURL)
        let secondNonce = try await other.appleNonce()
        let later = try server.device.appleSignIn(hashedNonce: secondNonce.hashed, subject: "001111.apple.0001")
        let returning = try await other.signInWithApple(
            try AppleSignInExchange(identityToken: later.identityToken, authorizationCode: nil, fullName: nil, nonce: secondNonce)
        )
        XCTAssertEqual(returning.isNewAccount, false)
        XCTAssertEqual(returning.user.id, signedIn.user.id)
        XCTAssertEqual(returning.user.displayName, "Grace Hopper")

        // A hashed nonce Apple never saw: the token's nonce does not match.
        let third = try await other.appleNonce()
        let wrong = try server.device.appleSignIn(hashedNonce: String(repeating: "0", count: 64), subject: "001111.apple.0001")
        _ = await expectError(.invalidIdentityToken, status: 401) {
            _ = try await other.signInWithApple(
                try AppleSignInExchange(identityToken: wrong.identityToken, authorizationCode: nil, fullName: nil, nonce: third)
            )
        }
    }

    func testLinkAndMergeAccounts() async throws {
        // An Apple account, and a passkey account that then meets the same Apple ID.
        let appleClient = client()
        let firstNonce = try await appleClient.appleNonce()
        let first = try server.device.appleSignIn(hashedNonce: firstNonce.hashed, subject: "002222.apple.0001")
        let appleAccount = try await appleClient.signInWithApple(
            try AppleSignInExchange(identityToken: first.identityToken, authorizationCode: nil, fullName: nil, nonce: firstNonce)
        )
        let passkeyClient = client()
        let passkeyAccount = try await signUp(passkeyClient, "linus")

        // Linking a new Apple ID to the passkey account works.
        let linkNonce = try await passkeyClient.appleNonce()
        let link = try server.device.appleSignIn(hashedNonce: linkNonce.hashed, subject: "003333.apple.0001")
        let linked = try await passkeyClient.signInWithApple(
            try AppleSignInExchange(identityToken: link.identityToken, authorizationCode: nil, fullName: nil, nonce: linkNonce)
        )
        XCTAssertEqual(linked.user.id, passkeyAccount.user.id)
        let value2 = try await passkeyClient.account().signInMethods.apple.map(\.appleUserID)
        XCTAssertEqual(value2, ["003333.apple.0001"])
        // The link's answer is a session made through that Apple ID (the client keeps it): unlinking ends it.
        try await passkeyClient.unlinkApple(appleUserID: "003333.apple.0001")
        _ = await expectError(.notSignedIn, status: 401) { _ = try await passkeyClient.account() }
        XCTAssertFalse(passkeyClient.isSignedIn)
        _ = try await passkeyClient.signIn(try server.device.assert(try PlatformAssertionRequest(try await passkeyClient.authenticationOptions())))
        let value3 = try await passkeyClient.account().signInMethods.apple
        XCTAssertEqual(value3, [])
        _ = await expectError(.appleIdentityNotFound, status: 404) { try await passkeyClient.unlinkApple(appleUserID: "003333.apple.0001") }

        // The Apple ID of the other account: 409 with a merge token, then the conflict, then the merge.
        let takenNonce = try await passkeyClient.appleNonce()
        let taken = try server.device.appleSignIn(hashedNonce: takenNonce.hashed, subject: "002222.apple.0001")
        let conflict = await expectError(.appleIdentityTaken, status: 409) {
            _ = try await passkeyClient.signInWithApple(
                try AppleSignInExchange(identityToken: taken.identityToken, authorizationCode: nil, fullName: nil, nonce: takenNonce)
            )
        }
        let mergeToken = try XCTUnwrap(conflict?.mergeToken)
        let choice = await expectError(.mergeConflict, status: 409) { _ = try await passkeyClient.merge(.mergeToken(mergeToken)) }
        XCTAssertEqual(choice?.accounts?.current.passkeys, 1)
        XCTAssertEqual(choice?.accounts?.other.appleLinked, true)
        let merged = try await passkeyClient.merge(.mergeToken(try XCTUnwrap(choice?.mergeToken)), keep: .current)
        XCTAssertEqual(merged.user.id, passkeyAccount.user.id)
        XCTAssertEqual(merged.previousUserId, appleAccount.user.id)
        let value4 = try await passkeyClient.account().signInMethods.apple.map(\.appleUserID)
        XCTAssertEqual(value4, ["002222.apple.0001"])
        // The merged-away account's session ended with it, and the client dropped it on the 401.
        _ = await expectError(.notSignedIn, status: 401) { _ = try await appleClient.account() }
        XCTAssertFalse(appleClient.isSignedIn)

        // A web view hand-off link for the survivor.
        let handoff = try await passkeyClient.sessionHandoff()
        XCTAssertEqual(handoff.url.path, "/session/handoff")
        XCTAssertGreaterThan(handoff.expiresAt, Date())
    }

    /// A user imported with a password from the app's old system (passlib's PBKDF2 form of "correct horse battery
    /// staple"): a wrong password is `password_invalid`, the right one signs in, and the automatic upgrade's options
    /// (conditional) go to the device, whose passkey then signs in. Options for an upgrade without a password
    /// sign-in are `passkey_upgrade_not_allowed`.
    func testPasswordSignInThenAutomaticPasskeyUpgrade() async throws {
        let hash = "$pbkdf2-sha256$29000$cGFzc2tleWQtY2xpZW50IQ$AFRRfsWbZkyXKNpt2to1tUSNH5s83z.ve5LnPQo8Q/A"
        try server.importUsers(
            """
            {"type": "passkeyd.export", "version": 1, "relyingPartyId": "example.com", "exportedAt": "2026-12-05T12:00:00.000Z"}
            {"type": "user", "id": "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE", "username": "pat", "displayName": "Pat", \
            "displayNameIsDefault": false, "appAccountToken": "00000000-0000-4000-8000-000000000001", "emailVerified": false, \
            "createdAt": "2026-12-05T12:00:00.000Z", "passwordHash": "\(hash)"}
            """
        )
        let client = client()
        _ = await expectError(.passwordInvalid, status: 401) {
            _ = try await client.signInWithPassword(username: "pat", password: "correct horse battery stapler")
        }
        let signedIn = try await client.signInWithPassword(username: "pat", password: "correct horse battery staple")
        XCTAssertEqual(signedIn.user.username, "pat")
        XCTAssertNil(signedIn.restricted)
        XCTAssertTrue(client.isSignedIn)

        let request = try PlatformRegistrationRequest(try await client.registrationOptions(automaticUpgrade: true))
        let upgraded = try await client.register(try server.device.create(request))
        XCTAssertEqual(upgraded.upgrade, true)
        XCTAssertEqual(upgraded.user.id, signedIn.user.id)

        try await client.signOut()
        let passkey = try await client.signIn(try server.device.assert(try PlatformAssertionRequest(try await client.authenticationOptions())))
        XCTAssertEqual(passkey.user.id, signedIn.user.id)
        _ = await expectError(.passkeyUpgradeNotAllowed, status: 403) {
            _ = try await client.registrationOptions(automaticUpgrade: true)
        }
    }

    func testErrorsMapToTheServersCodes() async throws {
        let store = InMemoryTokenStore()
        let client = client(store)
        let ada = try await signUp(client, "grace")
        let other = self.client()
        _ = await expectError(.usernameTaken, status: 409) { _ = try await other.registrationOptions(username: "grace") }
        let invalid = await expectError(.invalidUsername, status: 400) { _ = try await other.registrationOptions(username: "") }
        XCTAssertEqual(invalid?.member, "username")
        let unnamed = await expectError(.invalidRequest, status: 400) { try await client.renamePasskey(id: ada.credentialId!, to: " ") }
        XCTAssertEqual(unnamed?.member, "name")
        _ = await expectError(.notSignedIn, status: 401) { _ = try await other.passkeys() }

        // A tampered signature: verification_failed naming the step; the challenge is then spent.
        let options = try PlatformAssertionRequest(try await other.authenticationOptions(username: "grace"))
        let assertion = try server.device.assert(options)
        var signature = assertion.signature
        signature[signature.count - 1] ^= 0x01
        let tampered = PlatformAssertion(
            credentialID: assertion.credentialID,
            rawClientDataJSON: assertion.rawClientDataJSON,
            rawAuthenticatorData: assertion.rawAuthenticatorData,
            signature: signature,
            userID: assertion.userID
        )
        let refused = await expectError(.verificationFailed, status: 400) { _ = try await other.signIn(tampered) }
        XCTAssertNotNil(refused?.step)
        _ = await expectError(.challengeUnknown, status: 400) { _ = try await other.signIn(assertion) }

        // A passkey this server does not know: answered as any failed assertion (no enumeration, issue 15).
        let unknownOptions = try PlatformAssertionRequest(try await other.authenticationOptions())
        let unknown = try server.device.assert(unknownOptions)
        let stranger = PlatformAssertion(
            credentialID: Data(repeating: 7, count: 20),
            rawClientDataJSON: unknown.rawClientDataJSON,
            rawAuthenticatorData: unknown.rawAuthenticatorData,
            signature: unknown.signature,
            userID: unknown.userID
        )
        _ = await expectError(.verificationFailed, status: 400) { _ = try await other.signIn(stranger) }

        // A session the server no longer knows is dropped from the store on its first 401.
        try store.save(StoredSession(token: "not-a-session", expiresAt: Date().addingTimeInterval(3600)))
        _ = await expectError(.notSignedIn, status: 401) { _ = try await client.registrationOptions(username: "someone") }
        XCTAssertNil(try store.load())
        // An expired one is never sent: signed out, registration of a new account works at once.
        try store.save(StoredSession(token: ada.token!, expiresAt: Date().addingTimeInterval(-1)))
        XCTAssertFalse(client.isSignedIn)
        let fresh = try await client.registrationOptions(username: "someone")
        XCTAssertEqual(fresh.user.name, "someone")
        XCTAssertNil(try store.load())

        // No server at all.
        let nowhere = PasskeydClient(baseURL: URL(string: "http://127.0.0.1:\(try LoopbackServer.freePort())")!)
        _ = await expectError(.network, status: nil) { _ = try await nowhere.authenticationOptions() }
    }

    func testRateLimitedCarriesRetryAfter() async throws {
        server.stop()
        server = try LoopbackServer(extraConfiguration: #", "rateLimits": {"perAddressPerMinute": 1, "perAddressBurst": 2}"#)
        let client = client()
        _ = try await client.authenticationOptions()
        _ = try await client.authenticationOptions()
        let limited = await expectError(.rateLimited, status: 429) { _ = try await client.authenticationOptions() }
        XCTAssertGreaterThan(limited?.retryAfterSeconds ?? 0, 0)
    }
}
