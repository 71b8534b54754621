import Foundation
import Testing

@testable import UserImport

/// The exports of other auth systems read into users: Auth0's in either shape, Supabase's `auth.users`, Firebase's
/// file and its hash parameters; every refusal `invalid` with its member and, where there is one, its line.
struct ForeignExportTests {
    /// What `read` threw (nil when it read), which is never anything but a `UserImportError`; its code, member and
    /// line (the reason is for the log).
    static func refusal<Value>(_ read: () throws -> Value) -> UserImportError? {
        do {
            _ = try read()
            return nil
        } catch {
            #expect(error is UserImportError, "\(error)")
            return (error as? UserImportError).map { error in
                let brief = UserImportError(error.code, member: error.member)
                return error.line.map(brief.onLine) ?? brief
            }
        }
    }

    static func auth0(_ body: String) throws(UserImportError) -> [ImportedUser] {
        try ImportRecordReader.records(Array(body.utf8), layout: Auth0UsersExport.layout) { _, record throws(UserImportError) in
            try Auth0UsersExport.user(record)
        }
    }

    static func supabase(_ body: String, now: Date) throws(UserImportError) -> [ImportedUser] {
        try ImportRecordReader.records(Array(body.utf8), layout: SupabaseUsersExport.layout) { _, record throws(UserImportError) in
            try SupabaseUsersExport.user(record, now: now)
        }
    }

    static func firebase(_ body: String) throws(UserImportError) -> [FirebaseAuthExport.User] {
        try ImportRecordReader.records(Array(body.utf8), layout: FirebaseAuthExport.layout) { _, record throws(UserImportError) in
            try FirebaseAuthExport.user(record)
        }
    }

    /// A time's milliseconds since 1970 (a parsed fraction is not exactly a literal's).
    static func milliseconds(_ date: Date?) -> Int64? {
        date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }

    @Test func auth0UsersReadTheSameAsAnArrayOrOneALine() throws {
        let array =
            #"[{"user_id": "auth0|1", "email": "a@example.com", "email_verified": true, "name": "A", "created_at": "2024-05-01T10:00:00.123Z"}, {"_id": {"$oid": "2"}, "passwordHash": "$2b$10$x", "blocked": true}]"#
        let lines =
            #"{"user_id": "auth0|1", "email": "a@example.com", "email_verified": true, "name": "A", "created_at": "2024-05-01T10:00:00.123Z"}"#
            + "\n\n" + #"{"_id": {"$oid": "2"}, "passwordHash": "$2b$10$x", "blocked": true}"# + "\n"
        for body in [array, lines] {
            let users = try Self.auth0(body)
            #expect(users.map(\.externalID) == ["auth0|1", "auth0|2"])
            #expect(users[0].email == "a@example.com" && users[0].emailVerified && users[0].displayName == "A" && !users[0].disabled)
            #expect(Self.milliseconds(users[0].createdAt) == 1_714_557_600_123)
            #expect(users[1].passwordHash == "$2b$10$x" && users[1].disabled && !users[1].emailVerified)
        }
    }

    @Test func auth0RefusalsNameTheirLine() {
        #expect(
            Self.refusal { try Self.auth0("{\"user_id\": \"a\"}\nnot json") }
                == UserImportError(.invalid, member: "users").onLine(2)
        )
        #expect(
            Self.refusal { try Self.auth0(#"[{"user_id": "a"}, {"email": "b@example.com"}]"#) }
                == UserImportError(.invalid, member: "user_id").onLine(2)
        )
        #expect(Self.refusal { try Self.auth0("[1") } == UserImportError(.invalid, member: "users").onLine(1))
        #expect(Self.refusal { try Self.auth0(#"[{"user_id": "a"}"#) } == UserImportError(.invalid, member: "users"), "it ends early")
    }

    @Test func supabaseRowsKeepTheirIdAndSayWhoIsGone() throws {
        let body = #"""
            [{"id": "u1", "email": "", "encrypted_password": "", "email_confirmed_at": null, "raw_user_meta_data": {"full_name": "Full", "name": "N"}},
             {"id": "u2", "email": "b@example.com", "encrypted_password": "$2a$10$y", "email_confirmed_at": "2024-05-01 10:00:00.123456+00", "deleted_at": "2024-06-01T00:00:00Z"},
             {"id": "u3", "banned_until": "2999-01-01T00:00:00Z"}, {"id": "u4", "banned_until": "2000-01-01T00:00:00Z"}]
            """#
        let users = try Self.supabase(body, now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(users.map(\.externalID) == ["u1", "u2", "u3", "u4"])
        #expect(users[0].email == nil && users[0].passwordHash == nil && users[0].displayName == "Full" && !users[0].emailVerified)
        #expect(users[1].emailVerified && users[1].passwordHash == "$2a$10$y")
        #expect(users.map(\.disabled) == [false, true, true, false], "deleted, or banned until after now")
        #expect(
            Self.refusal { try Self.supabase(#"{"users": []}"#, now: Date()) } == UserImportError(.invalid, member: "users")
        )
    }

    @Test func timesReadInBothForms() {
        #expect(Self.milliseconds(ImportedUser.time("2024-05-01T10:00:00.123456Z")) == 1_714_557_600_123)
        #expect(Self.milliseconds(ImportedUser.time("2024-05-01 10:00:00.5+02")) == 1_714_550_400_500)
        #expect(ImportedUser.time(String(repeating: "1", count: 65)) == nil)
        #expect(ImportedUser.time("yesterday") == nil && ImportedUser.time(nil) == nil)
    }

    @Test func aFirebaseFileIsReadWithItsProviders() throws {
        let body =
            #"{"users": [{"localId": "f1", "createdAt": "1714557600123", "providerUserInfo": [{"providerId": "apple.com", "rawId": "000.a"}]}, {"localId": "f2", "createdAt": 1714557600000}]}"#
        let users = try Self.firebase(body)
        #expect(users.map(\.localId) == ["f1", "f2"])
        #expect(Self.milliseconds(users[0].createdAt) == 1_714_557_600_123 && Self.milliseconds(users[1].createdAt) == 1_714_557_600_000)
        #expect(users[0].providerUserInfo.first?.rawId == "000.a" && users[1].providerUserInfo.isEmpty)
        #expect(Self.refusal { try Self.firebase(#"{"accounts": []}"#) } == UserImportError(.invalid, member: "users"))
        #expect(Self.refusal { try Self.firebase(#"{"users": [{"localId": 1}]}"#) } == UserImportError(.invalid, member: "users").onLine(1))
    }

    @Test func firebaseHashParametersAreNoneOrAll() throws {
        #expect(try FirebaseHashParameters.given(signerKey: nil, saltSeparator: nil, rounds: nil, memoryCost: nil) == nil)
        #expect(
            try FirebaseHashParameters.given(signerKey: "k", saltSeparator: "", rounds: "8", memoryCost: "14")
                == FirebaseHashParameters(signerKey: "k", saltSeparator: "", rounds: 8, memoryCost: 14)
        )
        let missing: [(String?, String?, String?, String?, String)] = [
            (nil, "s", "8", "14", "base64_signer_key"), ("", "s", "8", "14", "base64_signer_key"), ("k", nil, "8", "14", "base64_salt_separator"),
            ("k", "s", "eight", "14", "rounds"), ("k", "s", "8", nil, "mem_cost"),
        ]
        for (key, separator, rounds, cost, member) in missing {
            #expect(
                Self.refusal { try FirebaseHashParameters.given(signerKey: key, saltSeparator: separator, rounds: rounds, memoryCost: cost) }
                    == UserImportError(.invalid, member: member)
            )
        }
    }
}
