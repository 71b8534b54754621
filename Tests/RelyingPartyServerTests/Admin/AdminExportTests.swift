import Accounts
import CryptoCore
import Foundation
import Storage
import StoragePostgres
import StorageSQLite
import TestSupport
import Testing
import UserImport

@testable import RelyingPartyServer

/// `GET /admin/export` and `POST /admin/import`: NDJSON without secrets, an import that is idempotent (upserts by ID)
/// and all or nothing, bounded lines; export → import into an empty store gives the same accounts on every driver.
struct AdminExportTests {
    static let key = AdminAPITests.key

    /// A server on `store` with an admin listener, its public and admin clients.
    struct Deployment {
        let store: any PasskeyStore
        let server: RelyingPartyServer
        let client: PasskeyClient
        let admin: PasskeyClient

        init(_ store: any PasskeyStore, clock: ManualClock) throws {
            self.store = store
            server = try TestServerFactory.make(
                configuration: try TestServerFactory.configuration(AdminAPITests.configuration),
                store: store,
                clock: clock
            )
            client = PasskeyClient(DirectTransport(handler: server))
            admin = PasskeyClient(DirectTransport(handler: AdminAPI(server: server)))
        }

        func export() throws -> String {
            let reply = try admin.send("GET", "/admin/export", headers: AdminExportTests.key)
            #expect(reply.status == 200 && reply.headers["Content-Type"] == "application/x-ndjson")
            return reply.text
        }

        func importLines(_ text: String) throws -> ServerReply {
            try admin.send(
                "POST",
                "/admin/import",
                json: Array(text.utf8),
                headers: AdminExportTests.key + [("Content-Type", "application/x-ndjson")]
            )
        }
    }

    static let appleSubject = "000111.0123456789abcdef0123456789abcdef.0111"

    /// Accounts with what an export carries and what it must not: passkeys, an Apple identity (with a refresh
    /// token), sessions, recovery codes, an enrollment link, an email.
    static func populate(_ deployment: Deployment) throws -> [String] {
        let alice = try deployment.client.register("alice")
        _ = try deployment.client.addPasskey(token: alice.token)
        let bob = try deployment.client.register("bob")
        let aliceID = Base64URL.encode(alice.userID)
        #expect(
            try deployment.admin.send(
                "PATCH",
                "/admin/users/\(aliceID)",
                json: Array(#"{"email": "a@example.com", "emailVerified": true}"#.utf8),
                headers: key
            )
            .status == 200
        )
        let identity = AppleIdentityRecord(
            subject: appleSubject,
            userID: bob.userID,
            email: "b@privaterelay.appleid.com",
            emailVerified: true,
            isPrivateEmail: true,
            realUserStatus: 2,
            transferSubject: nil,
            createdAt: Date(timeIntervalSince1970: 1_700_000_000.123)
        )
        let refreshToken: [UInt8] = Array("refresh-token-ciphertext".utf8)
        let google = FederatedIdentityRecord(
            issuer: "https://accounts.google.com",
            subject: "110169484474386276334",
            userID: bob.userID,
            provider: "google",
            email: "b@example.com",
            emailVerified: true,
            createdAt: Date(timeIntervalSince1970: 1_700_000_100.456),
            lastSignInAt: Date(timeIntervalSince1970: 1_700_000_200.789)
        )
        try deployment.store.transaction { transaction throws(StorageError) in
            try transaction.insertAppleIdentity(identity)
            try transaction.insertFederatedIdentity(google)
            _ = try transaction.setAppleRefreshToken(subject: appleSubject, clientID: "com.example.app", encryptedToken: refreshToken)
        }
        let codes = try deployment.client.send("POST", "/me/recovery-codes", headers: PasskeyClient.bearer(alice.token))
        let link = try deployment.admin.send("POST", "/admin/users/\(aliceID)/enrollment-links", headers: key)
        _ = try deployment.admin.send("POST", "/admin/users", json: Array(#"{"username": "invitee"}"#.utf8), headers: key)
        // What must never be in an export.
        let token = try #require((link.object["url"] as? String)?.split(separator: "=").last.map(String.init))
        return (codes.object["codes"] as? [String] ?? []) + [
            alice.token, bob.token, token, Base64URL.encode(AccountService.enrollmentTokenHash(token)),
            Base64URL.encode(refreshToken), Hex.encode(refreshToken), Base64URL.encode(SessionService.hash(alice.token)),
        ]
    }

    /// Export, import into an empty store of the same driver, export again: the same lines; a second import changes
    /// nothing; the accounts sign in with their passkeys there.
    static func roundTrip(_ makeStore: () throws -> any PasskeyStore) throws {
        let clock = ManualClock()
        let source = try Deployment(try makeStore(), clock: clock)
        let secrets = try populate(source)
        let exported = try source.export()
        let lines = exported.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(
            lines.map { $0?["type"] as? String } == [
                "passkeyd.export", "user", "passkey", "passkey", "user", "passkey", "appleIdentity", "identity", "user",
            ]
        )
        #expect(lines.first??["relyingPartyId"] as? String == "example.com" && lines.first??["version"] as? Int == 1)
        for secret in secrets where !secret.isEmpty {
            #expect(!exported.contains(secret), "no session, refresh token, recovery code or enrollment link")
        }
        #expect(!exported.contains("recovery") && !exported.contains("session") && !exported.contains("refresh"))

        let target = try Deployment(try makeStore(), clock: clock)
        let first = try target.importLines(exported)
        #expect(first.status == 200, "\(first.text)")
        #expect((first.object["users"] as? [String: Int]) == ["created": 3, "updated": 0, "unchanged": 0])
        #expect((first.object["passkeys"] as? [String: Int]) == ["created": 3, "updated": 0, "unchanged": 0])
        #expect((first.object["appleIdentities"] as? [String: Int]) == ["created": 1, "updated": 0, "unchanged": 0])
        #expect((first.object["identities"] as? [String: Int]) == ["created": 1, "updated": 0, "unchanged": 0])
        #expect(try target.export() == exported, "the same accounts, passkeys and Apple identities")
        let events = try target.store.allEvents().map(\.type)
        #expect(events.filter { $0 == "user.created" }.count == 3 && events.filter { $0 == "passkey.registered" }.count == 3)
        #expect(events.contains("apple.linked") && events.contains("identity.linked"))
        let created = try #require(try target.store.allEvents().first { $0.type == "user.created" })
        #expect(String(decoding: created.data, as: UTF8.self).contains(#""method":"import""#))

        let second = try target.importLines(exported)
        #expect((second.object["users"] as? [String: Int]) == ["created": 0, "updated": 0, "unchanged": 3])
        #expect((second.object["passkeys"] as? [String: Int]) == ["created": 0, "updated": 0, "unchanged": 3])
        #expect((second.object["identities"] as? [String: Int]) == ["created": 0, "updated": 0, "unchanged": 1])
        #expect(try target.store.allEvents().map(\.type) == events, "a second import changes nothing")
        #expect(try target.export() == exported)
    }

    @Test func exportThenImportGivesTheSameAccountsInMemory() throws {
        try Self.roundTrip { InMemoryStore() }
    }

    @Test func exportThenImportGivesTheSameAccountsOnSQLite() throws {
        let folder = try TemporaryFolder()
        var count = 0
        try Self.roundTrip {
            count += 1
            return try SQLiteStore(path: folder.path + "/store-\(count).sqlite")
        }
    }

    @Test func anImportUpdatesUsersByIDAndKeepsLivePasskeys() throws {
        let clock = ManualClock()
        let deployment = try Deployment(InMemoryStore(), clock: clock)
        let alice = try deployment.client.register("alice")
        let exported = try deployment.export()
        #expect(try deployment.client.signIn(alice.credential, AssertionOptions(signCount: 7)).status == 200)
        let renamed = exported.replacingOccurrences(of: #""username":"alice""#, with: #""username":"alice2""#)
        let reply = try deployment.importLines(renamed)
        #expect((reply.object["users"] as? [String: Int]) == ["created": 0, "updated": 1, "unchanged": 0])
        #expect(try deployment.store.user(id: alice.userID)?.name == "alice2")
        #expect(try deployment.store.credentials(userID: alice.userID).first?.signCount == 7, "the live counter stays")
        let updated = try #require(try deployment.store.allEvents().last)
        #expect(updated.type == "user.updated" && String(decoding: updated.data, as: UTF8.self).contains("username"))
    }

    @Test func refusedImportsNameTheLineAndWriteNothing() throws {
        let clock = ManualClock()
        let source = try Deployment(InMemoryStore(), clock: clock)
        _ = try source.client.register("alice")
        let exported = try source.export()
        let lines = exported.split(separator: "\n").map(String.init)
        let target = try Deployment(InMemoryStore(), clock: clock)
        let bob = try target.client.register("bob")
        let before = try target.store.allEvents().count

        func refused(_ text: String, _ status: Int, _ code: String, line: Int, member: String? = nil) throws {
            let reply = try target.importLines(text)
            #expect(reply.status == status && reply.errorCode == code, "\(reply.text)")
            #expect(reply.object["line"] as? Int == line, "\(reply.text)")
            if let member { #expect(reply.object["member"] as? String == member, "\(reply.text)") }
        }
        try refused(lines.dropFirst().joined(separator: "\n"), 400, "import_invalid", line: 1, member: "version")
        try refused(
            lines[0].replacingOccurrences(of: "example.com", with: "other.example") + "\n" + lines[1],
            400,
            "import_invalid",
            line: 1,
            member: "relyingPartyId"
        )
        try refused(lines[0] + "\n" + #"{"type": "session", "id": "x"}"#, 400, "import_invalid", line: 2, member: "type")
        try refused(lines[0] + "\nnot json", 400, "import_invalid", line: 2)
        try refused(
            lines[0] + "\n" + lines[1] + "\n" + String(repeating: " ", count: AdminExport.maximumLineBytes + 1) + "x",
            400,
            "import_invalid",
            line: 3
        )
        // A passkey whose public key is not a COSE key, and one for no account.
        let passkey = lines[2]
        let garbled = passkey.replacingOccurrences(of: #""publicKey":""#, with: #""publicKey":"AAAA"#)
        try refused([lines[0], lines[1], garbled].joined(separator: "\n"), 400, "import_invalid", line: 3, member: "publicKey")
        try refused([lines[0], passkey].joined(separator: "\n"), 400, "import_invalid", line: 2, member: "userId")
        // The target's username and passkey of another account: conflicts, with their lines, and nothing written.
        let taken = lines[1].replacingOccurrences(of: #""username":"alice""#, with: #""username":"bob""#)
        try refused([lines[0], taken, passkey].joined(separator: "\n"), 409, "username_taken", line: 2)
        let variant = lines[1].replacingOccurrences(of: #""username":"alice""#, with: #""username":"BOB""#)
        try refused([lines[0], variant, passkey].joined(separator: "\n"), 409, "username_taken", line: 2)
        let bobsPasskey = passkey.replacingOccurrences(
            of: #""id":"\#(lines[2].split(separator: "\"id\":\"")[1].split(separator: "\"")[0])""#,
            with: #""id":"\#(Base64URL.encode(bob.credential.id))""#
        )
        try refused([lines[0], lines[1], bobsPasskey].joined(separator: "\n"), 409, "credential_exists", line: 3)
        // Identities at OpenID providers: bounded members, an account, and not another account's.
        let aliceID = try #require((try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])?["id"] as? String)
        func identity(subject: String, userID: String) -> String {
            #"{"type":"identity","provider":"google","issuer":"https://accounts.google.com","subject":"\#(subject)","userId":"\#(userID)","#
                + #""emailVerified":false,"createdAt":"2026-01-01T00:00:00.000Z"}"#
        }
        try refused(
            [lines[0], lines[1], identity(subject: "", userID: aliceID)].joined(separator: "\n"),
            400,
            "import_invalid",
            line: 3,
            member: "subject"
        )
        try refused([lines[0], identity(subject: "1", userID: aliceID)].joined(separator: "\n"), 400, "import_invalid", line: 2, member: "userId")
        try target.store.transaction { transaction throws(StorageError) in
            try transaction.insertFederatedIdentity(
                FederatedIdentityRecord(
                    issuer: "https://accounts.google.com",
                    subject: "1",
                    userID: bob.userID,
                    provider: "google",
                    email: nil,
                    emailVerified: false,
                    createdAt: clock.now
                )
            )
        }
        let beforeIdentity = try target.store.allEvents().count
        try refused([lines[0], lines[1], identity(subject: "1", userID: aliceID)].joined(separator: "\n"), 409, "identity_taken", line: 3)
        #expect(try target.store.allEvents().count == beforeIdentity)
        try refused(
            lines[0] + String(repeating: "\n ", count: AdminExport.maximumLines) + "\n",
            400,
            "import_invalid",
            line: AdminExport.maximumLines + 1
        )
        #expect(try target.store.user(name: "alice") == nil, "all or nothing")
        #expect(try target.store.allEvents().count == before, "nothing written (the identity was seeded without an event)")

        let wrongType = try target.admin.send("POST", "/admin/import", json: Array(exported.utf8), headers: Self.key)
        #expect(wrongType.status == 415)
        #expect(try target.admin.send("GET", "/admin/export").status == 401)
        #expect(
            try target.admin.send("POST", "/admin/import", json: Array(exported.utf8), headers: [("Content-Type", "application/x-ndjson")]).status
                == 401
        )
        #expect(try target.client.send("GET", "/admin/export", headers: Self.key).status == 404, "not on the public listener")
    }

    static let firebaseFixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
        "Fixtures/firebase-users.json"
    )

    @Test func aFirebaseExportBecomesAccountsWithTheirAppleAndGoogleIdentities() throws {
        let clock = ManualClock()
        let deployment = try Deployment(InMemoryStore(), clock: clock)
        let file = Array(try Data(contentsOf: Self.firebaseFixture))
        let headers = Self.key + [("Content-Type", "application/json")]
        let reply = try deployment.admin.send("POST", "/admin/import?format=firebase", json: file, headers: headers)
        #expect(reply.status == 200, "\(reply.text)")
        #expect((reply.object["users"] as? [String: Int]) == ["created": 3, "updated": 0, "unchanged": 0])
        #expect((reply.object["appleIdentities"] as? [String: Int]) == ["created": 2, "updated": 0, "unchanged": 0])
        #expect((reply.object["identities"] as? [String: Int]) == ["created": 2, "updated": 0, "unchanged": 0])
        let skipped = try #require(reply.object["skipped"] as? [String: Any])
        #expect(skipped["count"] as? Int == 3 && skipped["disabled"] as? Int == 1)
        #expect((skipped["providers"] as? [String: Int]) == ["password": 1, "none": 1])

        let ann = try #require(try deployment.store.appleIdentity(subject: "001234.6f1d3c0a9b8e4f2a8c7d6e5f4a3b2c1d.1357"))
        #expect(ann.isPrivateEmail && ann.email == "x7kq2m9p4r@privaterelay.appleid.com")
        let annUser = try #require(try deployment.store.user(id: ann.userID))
        #expect(annUser.name == "x7kq2m9p4r@privaterelay.appleid.com" && annUser.displayName == "Ann Appleseed" && annUser.emailVerified)
        #expect(annUser.createdAt == Date(timeIntervalSince1970: 1_609_459_200))
        let bee = try #require(try deployment.store.appleIdentity(subject: "002468.0a1b2c3d4e5f60718293a4b5c6d7e8f9.0246"))
        let beeUser = try #require(try deployment.store.user(id: bee.userID))
        #expect(beeUser.name == "firebase-Q2w3E4r5T6y7U8i9O0pAsDfGhJk1" && beeUser.email == nil)
        #expect(try deployment.store.appleIdentity(subject: "003690.1f2e3d4c5b6a79881726354453627180.0369") == nil, "disabled: skipped")
        #expect(try deployment.store.user(name: "carol@example.com") == nil)
        // Google users come with their Google identity (rawId is Google's sub), alone or beside Apple's.
        let dan = try #require(try deployment.store.user(name: "dan@example.com"))
        let danIdentities = try deployment.store.transaction { transaction throws(StorageError) in try transaction.federatedIdentities(userID: dan.id)
        }
        #expect(danIdentities.map(\.subject) == ["112233445566778899001"] && danIdentities.first?.issuer == "https://accounts.google.com")
        #expect(danIdentities.first?.provider == "google")
        let beeIdentities = try deployment.store.transaction { transaction throws(StorageError) in
            try transaction.federatedIdentities(userID: beeUser.id)
        }
        #expect(beeIdentities.map(\.subject) == ["109876543210987654321"])

        let again = try deployment.admin.send("POST", "/admin/import?format=firebase", json: file, headers: headers)
        #expect((again.object["users"] as? [String: Int]) == ["created": 0, "updated": 0, "unchanged": 3], "idempotent")
        #expect((again.object["identities"] as? [String: Int]) == ["created": 0, "updated": 0, "unchanged": 2])
        #expect((again.object["appleIdentities"] as? [String: Int]) == ["created": 0, "updated": 0, "unchanged": 2])
        let notFirebase = try deployment.admin.send("POST", "/admin/import?format=firebase", json: Array(#"{"accounts": []}"#.utf8), headers: headers)
        #expect(notFirebase.status == 400 && notFirebase.errorCode == "import_invalid")
        let unknownFormat = try deployment.admin.send("POST", "/admin/import?format=csv", json: file, headers: headers)
        #expect(unknownFormat.status == 400 && unknownFormat.errorCode == "invalid_request")
    }
}

/// The round trip on PostgreSQL (serializable transactions).
@Suite("Admin export and import on PostgreSQL", PostgresClusterScope())
struct PostgresAdminExportTests {
    @Test func exportThenImportGivesTheSameAccounts() throws {
        let cluster = try PostgresClusterScope.current()
        try AdminExportTests.roundTrip {
            try PostgresStore(connectionString: cluster.connectionString(database: try cluster.createDatabase()), poolSize: 2)
        }
    }
}
