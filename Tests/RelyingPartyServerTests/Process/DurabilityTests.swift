import CryptoCore
import Foundation
import StorageSQLite
import TestSupport
import Testing
import WebAuthnCore

/// Issue 7: `passkeyd serve` killed with SIGKILL at random moments under a registration load and restarted on the
/// same data folder loses no registration its client saw succeed, keeps a sound database, and never accepts a
/// challenge twice across a restart. Issue 20: the load's four threads finish their ceremonies together, so the kills
/// land while group commits are in flight; no account is left half-written.
@Suite(.serialized) struct DurabilityTests {
    static let liftedRateLimits =
        #""rateLimits": {"perAddressPerMinute": 1000000, "perAddressBurst": 1000000, "perAccountPerMinute": 1000000, "perAccountBurst": 1000000, "outstandingChallengesPerAddress": 1000000}"#
    static let kills = 7

    /// A registration answered before a kill and sent after the restart.
    struct Pending {
        let username: String
        let credential: SoftwareCredential
        let response: RegistrationResponseJSON
    }

    @Test func registrationsSurviveSIGKILLAndChallengesStaySingleUse() throws {
        let started = Date()
        let folder = try TemporaryFolder()
        let data = folder.path + "/data"
        let configuration = folder.path + "/passkeyd.json"
        var generator = SeededGenerator(seed: 0x5EED_0007)
        var registered: [RegistrationLoad.Success] = []
        var pending: Pending?

        for round in 0...Self.kills {
            let server = try ServeProcess(dataDirectory: data, configurationPath: configuration, extraMembers: Self.liftedRateLimits)
            let client = PasskeyClient(CurlTransport(port: server.port))
            if let answered = pending {
                // Issued and acknowledged before the kill, so durable: accepted once, then never again.
                let first = try client.registrationVerify(answered.response)
                #expect(first.status == 200, "round \(round): \(first.text)")
                if let token = first.object["token"] as? String {
                    registered.append(.init(username: answered.username, credential: answered.credential, token: token))
                }
                let second = try client.registrationVerify(answered.response)
                #expect(second.status == 400)
                #expect(second.errorCode == "challenge_unknown")
                pending = nil
            }
            guard round < Self.kills else {
                try expectEveryRegistrationIsPresent(registered, client: client, generator: &generator)
                #expect(server.terminate() == 0)
                break
            }
            let username = "pending-\(round)"
            let options = try client.registrationOptions(username: username).decode(PublicKeyCredentialCreationOptionsJSON.self)
            let (credential, response) = try client.answer(options)
            pending = Pending(username: username, credential: credential, response: response)

            let load = RegistrationLoad(port: server.port, prefix: "round\(round)-")
            load.start()
            usleep(UInt32.random(in: 200_000...1_500_000, using: &generator))
            load.serverIsBeingKilled()
            server.stopWithSIGKILL()
            let outcome = load.finish()
            #expect(outcome.unexpectedFailures.isEmpty, "\(outcome.unexpectedFailures)")
            registered += outcome.successes

            // The killed database opens (recovering its WAL) and passes SQLite's integrity check.
            let store = try SQLiteStore(path: data + "/passkeyd.sqlite")
            #expect(try store.integrityCheck() == ["ok"])
            // Nothing unacknowledged is half-written: the concurrent registrations' final writes share commits (group
            // commit), and every account the killed database holds has the passkey and the session its registration
            // wrote with it, whole batches or none.
            let created = Set(try store.allEvents().filter { $0.type == "user.created" }.compactMap(\.userID))
            let halfWritten = try created.filter { user in
                try store.credentials(userID: user).isEmpty || store.sessions(userID: user, now: Date()).isEmpty
            }
            #expect(!created.isEmpty && halfWritten.isEmpty, "round \(round): \(halfWritten.count) of \(created.count) accounts half-written")
            store.close()
        }
        #expect(registered.count > Self.kills * 2, "the load registered too little to prove anything: \(registered.count)")
        #expect(Date().timeIntervalSince(started) < 180)
    }

    /// Every registration the client saw succeed: its session still opens `/me`, which lists its passkey; a sample
    /// signs in again.
    private func expectEveryRegistrationIsPresent(
        _ registered: [RegistrationLoad.Success],
        client: PasskeyClient,
        generator: inout SeededGenerator
    ) throws {
        var missing: [String] = []
        for account in registered {
            let me = try client.send("GET", "/me", headers: PasskeyClient.bearer(account.token))
            let passkeys = (me.object["passkeys"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            if me.status != 200 || passkeys != [Base64URL.encode(account.credential.id)] {
                missing.append(account.username)
            }
        }
        #expect(missing.isEmpty, "\(missing.count) of \(registered.count) registrations are missing: \(missing.prefix(10))")
        for account in registered.shuffled(using: &generator).prefix(10) {
            let signedIn = try client.signIn(account.credential, username: account.username)
            #expect(signedIn.status == 200, "\(account.username): \(signedIn.text)")
        }
    }
}
