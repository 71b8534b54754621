import CryptoCore
import Foundation
import Storage
import StorageSQLite
import TestSupport
import Testing

/// `POST /me/merge`: each proof, each survivor, the summary `409`, self-merge, refusals; written once on a store
/// transaction, run on every driver.
@Suite("Merging two accounts")
struct MergeTests {
    enum ProofKind: String, CaseIterable {
        case mergeToken, apple, passkey
    }

    /// Two accounts of one person: `current`, a passkey account signed in with `token`; `other`, a Sign in with Apple
    /// account with a passkey of its own and a session.
    struct Accounts {
        let current: PasskeyClient.Account
        let otherID: [UInt8]
        let otherPasskey: SoftwareCredential
        let otherSession: String
    }

    static func accounts(_ fixture: AppleFixture) throws -> Accounts {
        let other = try fixture.signInFresh(extra: ["fullName": "Jane Appleseed"])
        let otherSession = try #require(other.object["token"] as? String)
        let passkey = try fixture.client.addPasskey(token: otherSession)
        let current = try fixture.client.register("alice")
        return Accounts(current: current, otherID: try AppleFixture.userID(other), otherPasskey: passkey, otherSession: otherSession)
    }

    /// The proof of `kind` that the person holds the other account.
    static func proof(_ kind: ProofKind, _ fixture: AppleFixture, _ accounts: Accounts) throws -> [String: Any] {
        switch kind {
        case .mergeToken:
            let raw = AppleFixture.rawNonce()
            let taken = try fixture.signIn(
                token: try fixture.identityToken(rawNonce: raw),
                rawNonce: raw,
                headers: PasskeyClient.bearer(accounts.current.token)
            )
            return ["mergeToken": try #require(taken.object["mergeToken"] as? String)]
        case .apple:
            return try fixture.appleProof()
        case .passkey:
            return try fixture.passkeyProof(accounts.otherPasskey)
        }
    }

    static let cases: [(ProofKind, String)] = ProofKind.allCases.flatMap { kind in [(kind, "current"), (kind, "other")] }

    /// With `keep`: the survivor receives every passkey and the Apple identity, the other account goes with its
    /// sessions (no Apple revocation), the answer is the survivor with `previousUserId`, and a new session (and
    /// cookie) when the survivor is not the signed-in account.
    @Test(arguments: cases, [false, true])
    func mergingMovesEverythingToTheSurvivor(_ merge: (ProofKind, String), overHTTPS: Bool) throws {
        let (kind, keep) = merge
        let fixture = try AppleFixture(overHTTPS: overHTTPS)
        let accounts = try Self.accounts(fixture)
        let reply = try fixture.merge(try Self.proof(kind, fixture, accounts), keep: keep, token: accounts.current.token)
        #expect(reply.status == 200, "\(reply.text)")
        let (survivor, gone) = keep == "current" ? (accounts.current.userID, accounts.otherID) : (accounts.otherID, accounts.current.userID)
        #expect(try AppleFixture.userID(reply) == survivor)
        #expect(reply.object["previousUserId"] as? String == Base64URL.encode(gone))
        #expect(try fixture.store.user(id: gone) == nil)
        #expect(Set(try fixture.store.credentials(userID: survivor).map(\.id)) == [accounts.current.credential.id, accounts.otherPasskey.id])
        #expect(try fixture.store.appleIdentity(subject: AppleTokenMinter.subject)?.userID == survivor)
        // alice's display name was only the default (her username), the Apple account's its own: the survivor has it.
        let user = try #require(try fixture.store.user(id: survivor))
        #expect(user.displayName == "Jane Appleseed" && !user.displayNameIsDefault && user.email == AppleTokenMinter.email)
        if keep == "current" {
            #expect(reply.object["token"] == nil && reply.headers["Set-Cookie"] == nil, "the signed-in session goes on")
            #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(accounts.current.token)).status == 200)
            #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(accounts.otherSession)).status == 401)
        } else {
            let token = try #require(reply.object["token"] as? String)
            #expect(reply.headers["Set-Cookie"]?.hasPrefix("__Host-passkeyd_session=\(token);") == true)
            #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(accounts.current.token)).status == 401)
            let me = try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(token))
            #expect(try PasskeyClient.bytes((me.object["user"] as? [String: Any])?["id"] as? String ?? "") == survivor)
            let session = try #require(
                try fixture.store.sessions(userID: survivor, now: fixture.clock.now).first {
                    $0.tokenHash == DigestAlgorithm.sha256.hash(Array(token.utf8))
                }
            )
            #expect(session.method == .passkey && session.credentialID == accounts.current.credential.id, "it continues the signed-in session")
        }
        // Both passkeys and Sign in with Apple now open the survivor.
        #expect(try AppleFixture.userID(try fixture.signInFresh()) == survivor)
        for passkey in [accounts.current.credential, accounts.otherPasskey] {
            #expect(try AppleFixture.userID(try fixture.client.signIn(passkey)) == survivor)
        }
        fixture.server.processDueAppleWork()
        #expect(fixture.standIn.calls(to: "/auth/revoke").isEmpty, "the identity moved: nothing to revoke")
        let merged = try fixture.store.allEvents().filter { $0.type == "user.merged" }
        #expect(merged.count == 1 && merged[0].userID == survivor)
        #expect(String(decoding: merged[0].data, as: UTF8.self).contains(#""previousUserId":"\#(Base64URL.encode(gone))""#))
    }

    /// Without `keep`: `409 merge_conflict` with both accounts' summaries (no names, nothing identifying) and a merge
    /// token that merges without a second prompt.
    @Test(arguments: ProofKind.allCases, [false, true])
    func withoutKeepTheAnswerSummarisesBothAccounts(_ kind: ProofKind, overHTTPS: Bool) throws {
        let fixture = try AppleFixture(overHTTPS: overHTTPS)
        let accounts = try Self.accounts(fixture)
        let conflict = try fixture.merge(try Self.proof(kind, fixture, accounts), keep: nil, token: accounts.current.token)
        #expect(conflict.status == 409 && conflict.errorCode == "merge_conflict", "\(conflict.text)")
        let summary = try #require(conflict.object["accounts"] as? [String: [String: Any]])
        let current = try #require(summary["current"])
        let other = try #require(summary["other"])
        #expect(current["passkeys"] as? Int == 1 && current["appleLinked"] as? Bool == false)
        #expect(other["passkeys"] as? Int == 1 && other["appleLinked"] as? Bool == true)
        #expect(current["createdAt"] is String && other["lastSignInAt"] is String)
        #expect(Set(current.keys).isSubset(of: ["createdAt", "lastSignInAt", "passkeys", "appleLinked"]))
        #expect(!conflict.text.contains("alice") && !conflict.text.contains("Jane") && !conflict.text.contains(AppleTokenMinter.email))
        #expect(try fixture.store.user(id: accounts.otherID) != nil, "nothing merged yet")
        let token = try #require(conflict.object["mergeToken"] as? String)
        let merged = try fixture.merge(["mergeToken": token], keep: "other", token: accounts.current.token)
        #expect(merged.status == 200 && merged.object["previousUserId"] as? String == Base64URL.encode(accounts.current.userID))
    }

    @Test(arguments: [ProofKind.apple, .passkey], [false, true])
    func mergingAnAccountWithItselfIs400(_ kind: ProofKind, overHTTPS: Bool) throws {
        let fixture = try AppleFixture(overHTTPS: overHTTPS)
        let alice = try fixture.client.register("alice")
        try fixture.signInFresh(headers: PasskeyClient.bearer(alice.token))
        let proof = kind == .apple ? try fixture.appleProof() : try fixture.passkeyProof(alice.credential)
        let reply = try fixture.merge(proof, keep: "current", token: alice.token)
        #expect(reply.status == 400 && reply.errorCode == "merge_same_account")
        #expect(try fixture.store.user(id: alice.userID) != nil)
    }

    /// A passkey proof answers a sealed challenge, spent when the proof is verified: even a merge that stopped at its
    /// conflict uses it up.
    @Test func aPasskeyProofIsUsedOnce() throws {
        let fixture = try AppleFixture()
        let accounts = try Self.accounts(fixture)
        let proof = try fixture.passkeyProof(accounts.otherPasskey)
        #expect(try fixture.merge(proof, keep: nil, token: accounts.current.token).errorCode == "merge_conflict")
        let again = try fixture.merge(proof, keep: "current", token: accounts.current.token)
        #expect(again.status == 400 && again.errorCode == "challenge_unknown", "\(again.text)")
        #expect(try fixture.store.user(id: accounts.otherID) != nil)
    }

    @Test func refusals() throws {
        let fixture = try AppleFixture()
        let accounts = try Self.accounts(fixture)
        let token = accounts.current.token
        let none = try fixture.merge([:], keep: "current", token: token)
        #expect(none.status == 400 && none.errorCode == "invalid_request" && none.object["member"] as? String == "proof")
        var two = try fixture.appleProof()
        two["mergeToken"] = "x"
        #expect(try fixture.merge(two, keep: "current", token: token).object["member"] as? String == "proof", "exactly one proof")
        let badKeep = try fixture.merge(try fixture.appleProof(), keep: "both", token: token)
        #expect(badKeep.status == 400)
        #expect(try fixture.merge(["mergeToken": "unknown"], keep: "current", token: token).errorCode == "merge_proof_rejected")
        #expect(try fixture.merge(try fixture.appleProof(subject: "001.nobody"), keep: "current", token: token).errorCode == "merge_proof_rejected")
        let replayed = try fixture.appleProof()
        _ = try fixture.merge(replayed, keep: nil, token: token)
        #expect(try fixture.merge(replayed, keep: "current", token: token).errorCode == "merge_proof_rejected", "an Apple proof is used once")
        var forged = try fixture.appleProof()
        forged["apple"] = ["identityToken": "x.y.z", "rawNonce": "n"]
        #expect(try fixture.merge(forged, keep: "current", token: token).errorCode == "invalid_identity_token")
        #expect(try fixture.client.send("POST", "/me/merge", json: try AppleTokenMinter.json(["proof": try fixture.appleProof()])).status == 401)
        let cookie = try fixture.client.send(
            "POST",
            "/me/merge",
            json: try AppleTokenMinter.json(["proof": try fixture.appleProof(), "keep": "current"]),
            headers: [("Cookie", "__Host-passkeyd_session=\(token)"), ("Origin", "https://evil.example")]
        )
        #expect(cookie.status == 403, "a cookie-authenticated merge from another site")
        #expect(try fixture.store.user(id: accounts.otherID) != nil)
        #expect(try fixture.store.user(id: accounts.current.userID) != nil)
    }

    /// The merge is one store transaction written once: the same on SQLite (PostgreSQL: `PostgresAccountTests`).
    @Test(arguments: ["current", "other"])
    func theSQLiteStoreMergesAlike(keep: String) throws {
        let fixture = try AppleFixture(store: try SQLiteStore.inMemory())
        let accounts = try Self.accounts(fixture)
        let reply = try fixture.merge(try fixture.passkeyProof(accounts.otherPasskey), keep: keep, token: accounts.current.token)
        #expect(reply.status == 200, "\(reply.text)")
        let survivor = keep == "current" ? accounts.current.userID : accounts.otherID
        #expect(try fixture.store.credentials(userID: survivor).count == 2)
        #expect(try fixture.store.appleIdentities(userID: survivor).count == 1)
    }
}
