import CryptoCore
import Foundation
import TestSupport
import Testing

@testable import RelyingPartyServer
@testable import Storage

/// Imports from Supabase (`auth.users` as JSON) and Auth0 (its export, JSON or NDJSON): the previous system's user id
/// becomes `externalId`, bcrypt hashes sign in at `POST /auth/password`, deleted, banned and blocked users are skipped,
/// and an account the app's backend already made for that id is that user's account.
struct OtherSystemImportTests {
    let passwords: PasswordSignInTests
    let bcrypt = PasswordSignInTests.fixture("bcrypt $2a$")

    init() throws {
        passwords = try PasswordSignInTests()
    }

    func importFile(_ format: String, _ body: String, contentType: String = "application/json") throws -> ServerReply {
        try passwords.admin.send(
            "POST",
            "/admin/import?format=\(format)",
            json: Array(body.utf8),
            headers: AdminAPITests.key + [("Content-Type", contentType)]
        )
    }

    var supabaseFile: String {
        """
        [{"id": "8d5c7a52-1c1e-4b8b-9a51-2f3c1a0e9d11", "email": "sam@example.com", "encrypted_password": "\(bcrypt.hash)",
          "email_confirmed_at": "2024-05-01T10:00:00.123456+00:00", "created_at": "2024-04-30 09:00:00.654321+00",
          "raw_user_meta_data": {"full_name": "Sam Supa"}, "deleted_at": null, "banned_until": null},
         {"id": "0b6f7f7e-5d0e-4d5c-8f4f-7e0a1f1d2c33", "email": "oauth@example.com", "encrypted_password": "",
          "email_confirmed_at": null, "created_at": "2024-05-02T00:00:00Z", "raw_user_meta_data": {}},
         {"id": "c1d2e3f4-0000-4000-8000-000000000001", "email": "gone@example.com", "deleted_at": "2024-06-01T00:00:00Z"},
         {"id": "c1d2e3f4-0000-4000-8000-000000000002", "email": "banned@example.com", "banned_until": "2999-01-01T00:00:00Z"}]
        """
    }

    @Test func supabaseUsersKeepTheirIdAndPassword() throws {
        let reply = try importFile("supabase", supabaseFile)
        #expect(reply.status == 200, "\(reply.text)")
        #expect((reply.object["users"] as? [String: Int]) == ["created": 2, "updated": 0, "unchanged": 0])
        #expect((reply.object["passwords"] as? [String: Int]) == ["created": 1, "updated": 0, "unchanged": 0])
        #expect((reply.object["skipped"] as? [String: Any])?["disabled"] as? Int == 2)
        let sam = try #require(try passwords.store.user(name: "sam@example.com"))
        #expect(sam.externalID == "8d5c7a52-1c1e-4b8b-9a51-2f3c1a0e9d11" && sam.displayName == "Sam Supa" && sam.emailVerified)
        #expect(sam.createdAt == ISO8601Time.parse("2024-04-30T09:00:00.654Z"))
        let oauth = try #require(try passwords.store.user(name: "oauth@example.com"))
        #expect(!oauth.emailVerified && oauth.externalID == "0b6f7f7e-5d0e-4d5c-8f4f-7e0a1f1d2c33")
        #expect(try passwords.signIn(["email": "sam@example.com", "password": bcrypt.password]).status == 200)
        #expect(try passwords.signIn(["email": "oauth@example.com", "password": bcrypt.password]).errorCode == "password_invalid")
        let again = try importFile("supabase", supabaseFile)
        #expect((again.object["users"] as? [String: Int]) == ["created": 0, "updated": 0, "unchanged": 2], "idempotent")
    }

    @Test func anAccountMadeForTheSameIdIsThatUsersAccount() throws {
        // Step 1 (passkeys beside the old system) made the account; the import at the end finds it by externalId.
        let made = try passwords.admin.send(
            "POST",
            "/admin/users",
            json: Array(#"{"username": "sam", "externalId": "8d5c7a52-1c1e-4b8b-9a51-2f3c1a0e9d11"}"#.utf8),
            headers: AdminAPITests.key
        )
        let id = try #require((made.object["user"] as? [String: Any])?["id"] as? String)
        let reply = try importFile("supabase", supabaseFile)
        #expect((reply.object["users"] as? [String: Int]) == ["created": 1, "updated": 1, "unchanged": 0], "\(reply.text)")
        let userID = try #require(Base64URL.decode(id))
        let sam = try #require(try passwords.store.user(id: userID))
        #expect(sam.name == "sam" && sam.email == "sam@example.com" && sam.displayName == "Sam Supa", "the same account, updated")
        #expect(try passwords.signIn(["username": "sam", "password": bcrypt.password]).status == 200)
    }

    @Test func auth0ExportsInEitherShape() throws {
        let ndjson = """
            {"_id": {"$oid": "60a1b2c3d4e5f60718293a4b"}, "email": "ann@example.com", "email_verified": true, "passwordHash": "\(bcrypt.hash)"}
            {"user_id": "google-oauth2|1122334455", "email": "gus@example.com", "email_verified": true, "name": "Gus", "created_at": "2023-01-02T03:04:05.678Z"}
            {"user_id": "auth0|blocked", "email": "blocked@example.com", "blocked": true}
            """
        let reply = try importFile("auth0", ndjson, contentType: "application/x-ndjson")
        #expect(reply.status == 200, "\(reply.text)")
        #expect((reply.object["users"] as? [String: Int])?["created"] == 2)
        #expect(try passwords.store.user(name: "ann@example.com")?.externalID == "auth0|60a1b2c3d4e5f60718293a4b")
        #expect(try passwords.store.user(name: "gus@example.com")?.displayName == "Gus")
        #expect(try passwords.signIn(["username": "ann@example.com", "password": bcrypt.password]).status == 200)
        let array = #"[{"user_id": "auth0|x1", "email": "x1@example.com"}]"#
        #expect((try importFile("auth0", array).object["users"] as? [String: Int])?["created"] == 1)
    }

    @Test func badFilesAreRefusedWithTheirLine() throws {
        #expect(try importFile("supabase", #"{"users": []}"#).errorCode == "import_invalid")
        #expect(try importFile("supabase", supabaseFile, contentType: "text/plain").status == 415)
        let badLine = try importFile("auth0", "{\"user_id\": \"a\"}\nnot json", contentType: "application/x-ndjson")
        #expect(badLine.status == 400 && badLine.object["line"] as? Int == 2)
        let badHash = try importFile("auth0", #"[{"user_id": "auth0|1", "email": "a@example.com", "passwordHash": "$1$md5$crypt"}]"#)
        #expect(badHash.status == 400 && badHash.object["member"] as? String == "passwordHash" && badHash.object["line"] as? Int == 1)
        let noID = try importFile("auth0", #"[{"email": "a@example.com"}]"#)
        #expect(noID.status == 400 && noID.object["member"] as? String == "user_id")
        #expect(try importFile("okta", "[]").errorCode == "invalid_request")
        #expect(try passwords.store.user(name: "a@example.com") == nil, "nothing written")
    }
}
