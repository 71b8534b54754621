import ConfigurationReading
import CryptoCore
import Dispatch
import Foundation
import PasswordHashes
import TestSupport
import Testing

@testable import RelyingPartyServer
@testable import Storage

/// Legacy passwords as a bridge to passkeys: hashes come in only with an import (passkeyd's format with
/// `passwordHash`, a Firebase export with the project's parameters), `POST /auth/password` signs in with them like
/// every other sign-in, and every failure reads the same.
struct PasswordSignInTests {
    let clock = ManualClock()
    let store = InMemoryStore()
    let server: RelyingPartyServer
    let client: PasskeyClient
    let admin: PasskeyClient

    /// Hashes at the default scheduling policy (`passwords.hashing: normal`): in a parallel test run the cores are busy by
    /// design, and a hash at the idle policy (the production default, `PasswordVerifierTests`) could wait past its
    /// deadline for them.
    init(configuration: String = AdminAPITests.configuration) throws {
        var parsed = try TestServerFactory.configuration(configuration)
        parsed.passwords.hashesAtIdlePolicy = false
        server = try TestServerFactory.make(configuration: parsed, store: store, clock: clock)
        client = PasskeyClient(DirectTransport(handler: server))
        admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
    }

    /// Hashes made by the libraries of the users' previous systems (`Tests/PasswordHashesTests/Fixtures/hashes.json`).
    static let fixtures: [(format: String, hash: String, password: String)] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PasswordHashesTests/Fixtures/hashes.json")
        let file = try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        return (file["hashes"] as! [[String: String]]).map { ($0["format"]!, $0["hash"]!, $0["password"]!) }
    }()

    static func fixture(_ prefix: String) -> (format: String, hash: String, password: String) {
        fixtures.first { $0.format.hasPrefix(prefix) }!
    }

    /// An export file of users, each with its password hash (JSON-escaped).
    static func importFile(_ users: [(name: String, email: String?, hash: String?)]) -> String {
        var lines = [#"{"type": "passkeyd.export", "version": 1, "relyingPartyId": "example.com", "exportedAt": "2026-12-05T12:00:00.000Z"}"#]
        for (index, user) in users.enumerated() {
            let id = Base64URL.encode([UInt8](repeating: UInt8(index + 1), count: 32))
            let email = user.email.map { #", "email": "\#($0)""# } ?? ""
            let hash = user.hash.map { #", "passwordHash": "\#($0.replacingOccurrences(of: "\\", with: "\\\\"))""# } ?? ""
            let token = "00000000-0000-4000-8000-\(String(format: "%012d", index))"
            lines.append(
                #"{"type": "user", "id": "\#(id)", "username": "\#(user.name)", "displayName": "\#(user.name)", "displayNameIsDefault": true, "#
                    + #""appAccountToken": "\#(token)", "emailVerified": false, "createdAt": "2026-12-05T12:00:00.000Z"\#(email)\#(hash)}"#
            )
        }
        return lines.joined(separator: "\n")
    }

    func importLines(_ text: String) throws -> ServerReply {
        try admin.send("POST", "/admin/import", json: Array(text.utf8), headers: AdminAPITests.key + [("Content-Type", "application/x-ndjson")])
    }

    func signIn(_ body: [String: String]) throws -> ServerReply {
        try client.post("/auth/password", body)
    }

    @Test func importedHashesSignInLikeEveryOtherSignIn() throws {
        let (bcrypt, argon2, django) = (Self.fixture("bcrypt $2b$"), Self.fixture("argon2i (argon2-cffi)"), Self.fixture("pbkdf2_sha256 (Django"))
        let file = Self.importFile([("ada", "ada@example.com", bcrypt.hash), ("bob", nil, argon2.hash), ("cy", nil, django.hash), ("dee", nil, nil)])
        let imported = try importLines(file)
        #expect(imported.status == 200, "\(imported.text)")
        #expect((imported.object["passwords"] as? [String: Int]) == ["created": 3, "updated": 0, "unchanged": 0])
        #expect((try importLines(file).object["passwords"] as? [String: Int]) == ["created": 0, "updated": 0, "unchanged": 3], "idempotent")
        #expect(!(try admin.send("GET", "/admin/export", headers: AdminAPITests.key).text.contains("passwordHash")), "exports never carry hashes")
        let before = try store.allEvents().count

        for (name, password) in [("ada", bcrypt.password), ("BOB", argon2.password), ("cy", django.password)] {
            let reply = try signIn(["username": name, "password": password])
            #expect(reply.status == 200, "\(name): \(reply.text)")
            #expect((reply.object["user"] as? [String: Any])?["username"] as? String == name.lowercased())
            let token = try #require(reply.object["token"] as? String)
            #expect(reply.headers["Set-Cookie"]?.contains("__Host-passkeyd_session=") == true)
            #expect(try DecodedToken(try #require(reply.object["accessToken"] as? String)).claims["amr"] as? [String] == ["pwd"])
            #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 200)
            #expect(try store.session(tokenHash: SessionService.hash(token), now: clock.now)?.method == .password)
        }
        // By email, when exactly one account has it.
        #expect(try signIn(["email": "ADA@example.com", "password": bcrypt.password]).status == 200)
        let events = try store.allEvents().dropFirst(before)
        #expect(events.map(\.type) == Array(repeating: "session.created", count: 4))
        #expect(events.allSatisfy { String(decoding: $0.data, as: UTF8.self).contains(#""method":"password""#) })
    }

    @Test func everyFailureReadsTheSame() throws {
        let bcrypt = Self.fixture("bcrypt $2b$")
        _ = try importLines(
            Self.importFile([("ada", "shared@example.com", bcrypt.hash), ("bob", "shared@example.com", bcrypt.hash), ("dee", nil, nil)])
        )
        for body in [
            ["username": "ada", "password": bcrypt.password + "x"], ["username": "nobody", "password": bcrypt.password],
            ["username": "dee", "password": bcrypt.password], ["email": "shared@example.com", "password": bcrypt.password],
            ["email": "nobody@example.com", "password": bcrypt.password],
            ["username": "ada", "password": String(repeating: "x", count: PasswordHashLimits.maximumPasswordBytes + 1)],
            ["username": "ada", "password": ""],
        ] {
            let reply = try signIn(body)
            #expect(reply.status == 401 && reply.errorCode == "password_invalid", "\(body.keys.sorted())")
            #expect(reply.object["message"] as? String == "The username or password is not valid.")
        }
        for body in [["password": "x"], ["username": "ada", "email": "a@example.com", "password": "x"]] {
            #expect(try signIn(body).errorCode == "invalid_request", "one of username and email")
        }
        #expect(try store.allEvents().allSatisfy { $0.type != "session.created" }, "no session for any of them")
    }

    @Test func guessesAtOneAccountAreLimited() throws {
        let bcrypt = Self.fixture("bcrypt $2b$")
        _ = try importLines(Self.importFile([("ada", nil, bcrypt.hash)]))
        var statuses: [Int] = []
        for _ in 0..<12 { statuses.append(try signIn(["username": "Ada", "password": "guess"]).status) }
        #expect(statuses.prefix(10).allSatisfy { $0 == 401 })
        #expect(statuses.suffix(2).allSatisfy { $0 == 429 }, "\(statuses)")
        // Time restores the owner's way in.
        clock.advance(by: 60)
        #expect(try signIn(["username": "ada", "password": bcrypt.password]).status == 200)
    }

    @Test func verificationsBeyondTheLimitAreRefusedAtOnceNotQueued() throws {
        let slow = try PasswordHash(Self.fixture("argon2 (Django").hash)
        // At the default policy: a hash at the idle one may wait past its deadline behind the other tests' work (CI on
        // 2026-12-07, the last verification `503`), which is that policy's design, not what this test checks.
        let verifier = PasswordVerifier(limit: 1, idle: false)
        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            started.signal()
            _ = try? verifier.verify("password", against: slow)
            finished.signal()
        }
        started.wait()
        Thread.sleep(forTimeInterval: 0.02)
        let began = Date()
        do {
            _ = try verifier.verify("password", against: slow)
            Issue.record("a second verification ran beside the first")
        } catch {
            #expect(error.code == .passwordVerificationBusy)
            #expect(error.headers.contains { $0.0 == "Retry-After" })
        }
        #expect(Date().timeIntervalSince(began) < 0.05, "refused at once")
        finished.wait()
        #expect(try verifier.verify(Self.fixture("argon2 (Django").password, against: slow), "a slot is free again")
    }

    @Test func malformedUnsupportedAndAbsurdHashesAreRefusedAtImportWithTheirLine() throws {
        for hash in ["not-a-hash", "$1$saltsalt$hash", "$2b$31$" + String(repeating: ".", count: 53)] {
            let reply = try importLines(Self.importFile([("ada", nil, nil), ("bob", nil, hash)]))
            #expect(reply.status == 400 && reply.errorCode == "import_invalid", "\(hash): \(reply.text)")
            #expect(reply.object["member"] as? String == "passwordHash" && reply.object["line"] as? Int == 3)
            #expect(try store.user(name: "ada") == nil, "nothing is written")
        }
    }

    /// The user of firebase/scrypt's README, as `firebase auth:export` writes a password user.
    static let firebaseFile = """
        {"users": [
          {"localId": "FbPassword01", "email": "user1@example.com", "emailVerified": true, "passwordHash":
           "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==", "salt": "42xEC+ixf3L2lw==",
           "createdAt": "1614556800000", "providerUserInfo": [{"providerId": "password", "rawId": "user1@example.com"}]},
          {"localId": "FbGoogle02", "email": "g@example.com", "providerUserInfo": [{"providerId": "google.com", "rawId": "1122"}]}
        ]}
        """
    static let firebaseParameters =
        "base64_signer_key=jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA%3D%3D&base64_salt_separator=Bw%3D%3D&rounds=8&mem_cost=14"

    @Test func aFirebaseExportBringsPasswordUsersGivenTheProjectsParameters() throws {
        let headers = AdminAPITests.key + [("Content-Type", "application/json")]
        let without = try admin.send("POST", "/admin/import?format=firebase", json: Array(Self.firebaseFile.utf8), headers: headers)
        // The Google user comes in with its Google identity; the password user only with the project's parameters.
        #expect((without.object["skipped"] as? [String: Any])?["providers"] as? [String: Int] == ["password": 1])
        let reply = try admin.send(
            "POST",
            "/admin/import?format=firebase&" + Self.firebaseParameters,
            json: Array(Self.firebaseFile.utf8),
            headers: headers
        )
        #expect(reply.status == 200, "\(reply.text)")
        #expect((reply.object["passwords"] as? [String: Int]) == ["created": 1, "updated": 0, "unchanged": 0])
        #expect((reply.object["skipped"] as? [String: Any])?["count"] as? Int == 0)
        #expect(try signIn(["email": "user1@example.com", "password": "user1password"]).status == 200)
        #expect(try signIn(["username": "user1@example.com", "password": "user1password"]).status == 200)
        #expect(try signIn(["username": "user1@example.com", "password": "user2password"]).errorCode == "password_invalid")

        let partial = try admin.send("POST", "/admin/import?format=firebase&rounds=8", json: Array(Self.firebaseFile.utf8), headers: headers)
        #expect(partial.status == 400 && partial.object["member"] as? String == "base64_signer_key")
        let absurd = Self.firebaseParameters.replacingOccurrences(of: "mem_cost=14", with: "mem_cost=30")
        let refused = try admin.send("POST", "/admin/import?format=firebase&" + absurd, json: Array(Self.firebaseFile.utf8), headers: headers)
        #expect(refused.status == 400 && refused.object["member"] as? String == "passwordHash" && refused.object["line"] as? Int == 1)
    }

    @Test func passwordsIsConfiguredWithinItsBounds() throws {
        #expect(throws: ConfigurationError.self) {
            _ = try TestServerFactory.configuration(
                #"{"relyingParty": {"id": "example.com", "name": "E", "origins": ["https://example.com"]}, "passwords": {"maximumConcurrentVerifications": 0}}"#
            )
        }
        #expect(throws: ConfigurationError.self) {
            _ = try TestServerFactory.configuration(
                #"{"relyingParty": {"id": "example.com", "name": "E", "origins": ["https://example.com"]}, "passwords": {"session": "x"}}"#
            )
        }
        #expect(throws: ConfigurationError.self) {
            _ = try TestServerFactory.configuration(
                #"{"relyingParty": {"id": "example.com", "name": "E", "origins": ["https://example.com"]}, "passwords": {"hashing": "high"}}"#
            )
        }
        let relyingParty = #"{"relyingParty": {"id": "example.com", "name": "E", "origins": ["https://example.com"]}"#
        #expect(try TestServerFactory.configuration(relyingParty + "}").passwords.hashesAtIdlePolicy, "idle by default")
        #expect(try !TestServerFactory.configuration(relyingParty + #", "passwords": {"hashing": "normal"}}"#).passwords.hashesAtIdlePolicy)
    }

    @Test func theFunnelCountsPasswordSignInsByOutcomeAndCode() throws {
        let bcrypt = Self.fixture("bcrypt $2b$")
        _ = try importLines(Self.importFile([("ada", nil, bcrypt.hash)]))
        #expect(try signIn(["username": "ada", "password": bcrypt.password]).status == 200)
        for _ in 0..<3 { _ = try signIn(["username": "ada", "password": "guess"]) }
        let funnel = try #require(try MetricsTests.scrape(server)["passkeyd_ceremonies"])
        func count(_ outcome: String, _ code: String = "") -> Double? {
            funnel.value("passkeyd_ceremonies_total", ["kind": "password", "stage": "verify", "outcome": outcome, "code": code])
        }
        #expect(count("ok") == 1)
        #expect(count("failed", "password_invalid") == 3, "the sign of credential stuffing")
    }
}
