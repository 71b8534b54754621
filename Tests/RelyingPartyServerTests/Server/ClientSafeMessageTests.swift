import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Storage
import StorageSQLite
import TestSupport
import Testing
import WebAuthnCore

@testable import RelyingPartyServer

/// Issue 12: a client gets the table's message for its code, never the core's reason (log detail); the member at
/// fault is named in `member`; the detail goes to the server log.
struct ClientSafeMessageTests {
    let store = InMemoryStore()
    let lines = AppleFixture.LogLines()
    let client: PasskeyClient

    init() throws {
        let lines = self.lines
        client = PasskeyClient(
            DirectTransport(handler: try TestServerFactory.make(store: store, log: .messages { line in lines.append(line) }))
        )
    }

    @Test func aVerificationFailureCarriesTheTablesMessageAndTheStepAndLogsTheReason() throws {
        let account = try client.register("alice")
        let reply = try client.signIn(
            account.credential,
            AssertionOptions(signCount: 0, relyingPartyIDHash: DigestAlgorithm.sha256.hash(Array("evil.test".utf8)))
        )
        #expect(reply.errorCode == "verification_failed")
        #expect(reply.object["message"] as? String == ServerError.Code.verificationFailed.answer.message)
        #expect(reply.object["step"] as? String == "authenticatorData.rpIdHashMismatch")
        #expect(!reply.text.contains("SHA-256"), "the core's reason reached the client: \(reply.text)")
        #expect(lines.all.contains { $0.hasPrefix("authentication refused: authenticatorData.rpIdHashMismatch: rpIdHash is not") })
    }

    @Test func aVerificationFailureWithItsOwnCodeCarriesThatCodesMessage() throws {
        let account = try client.register("bob")
        var assertion = AssertionOptions(signCount: 0)
        assertion.clientData.crossOrigin = true
        let reply = try client.signIn(account.credential, assertion)
        #expect(reply.errorCode == "origin_mismatch")
        #expect(reply.object["message"] as? String == ServerError.Code.originMismatch.answer.message)
        #expect(lines.all.contains { $0.hasPrefix("authentication refused: clientData.crossOriginNotAllowed: the ceremony ran in a cross-origin") })
    }

    @Test(arguments: [
        (#"{"username":"a","residentKey":"sometimes"}"#, "residentKey"), (#"{"username":"a","userVerification":"always"}"#, "userVerification"),
        (#"{"username":"a","hints":["carrier-pigeon"]}"#, "hints"), (#"{"username":5}"#, "username"), (#"{"username":"a","hints":[5]}"#, "hints[0]"),
        (#"{"username":"a","displayName":""}"#, "displayName"),
    ])
    func anInvalidMemberIsNamed(body: String, member: String) throws {
        let reply = try client.send("POST", "/webauthn/registration/options", json: Array(body.utf8))
        #expect(reply.status == 400)
        #expect(reply.errorCode == "invalid_request")
        #expect(reply.object["member"] as? String == member)
        #expect(reply.object["message"] as? String == ServerError.Code.invalidRequest.answer.message)
    }

    @Test func aMissingMemberIsNamedWithItsPath() throws {
        let reply = try client.send(
            "POST",
            "/webauthn/authentication/verify",
            json: Array(#"{"id":"a","rawId":"a","type":"public-key","response":{}}"#.utf8)
        )
        #expect(reply.errorCode == "invalid_request")
        #expect(reply.object["member"] as? String == "response.clientDataJSON")
    }

    @Test func anInvalidUsernameNamesTheMemberAndClientDataThatIsNotBase64URLToo() throws {
        let username = try client.send("POST", "/webauthn/registration/options", json: Array(#"{"username":""}"#.utf8))
        #expect(username.errorCode == "invalid_username")
        #expect(username.object["member"] as? String == "username")
        let body =
            #"{"id":"AAAA","rawId":"AAAA","type":"public-key","response":{"clientDataJSON":"not base64url!","authenticatorData":"AAAA","signature":"AAAA"}}"#
        let verify = try client.send("POST", "/webauthn/authentication/verify", json: Array(body.utf8))
        #expect(verify.errorCode == "verification_failed")
        #expect(verify.object["member"] as? String == "response.clientDataJSON")
    }

    @Test func aServerFaultIsLoggedWithItsDetailAndAnsweredWithTheTablesMessage() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore(path: folder.path + "/passkeyd.sqlite")
        let lines = self.lines
        let client = PasskeyClient(
            DirectTransport(handler: try TestServerFactory.make(store: store, log: .messages { line in lines.append(line) }))
        )
        let account = try client.register("carol")
        store.close()
        let reply = try client.send("GET", "/me/passkeys", headers: PasskeyClient.bearer(account.token))
        #expect(reply.status == 503)
        #expect(reply.object["message"] as? String == ServerError.Code.storageUnavailable.answer.message)
        #expect(reply.object.count == 2)
        #expect(lines.all.contains { $0.hasPrefix("GET /me/passkeys: storage_unavailable (storage.unavailable: ") })
    }
}
