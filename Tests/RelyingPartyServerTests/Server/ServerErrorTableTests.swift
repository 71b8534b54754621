import Foundation
import HTTPEdge
import Storage
import Testing
import WebAuthnCore

@testable import HTTPServer
@testable import RelyingPartyServer

/// The one table from server code to status and client message, the two variants, the core and storage mappings,
/// and the error tables of docs/reference/errors.md, which must say exactly what the code does.
struct ServerErrorTableTests {
    @Test func everyCodeHasAnErrorStatusAndAMessage() {
        for code in ServerError.Code.allCases {
            let (status, message) = code.answer
            #expect((400...599).contains(status), "\(code)")
            #expect(message.count > 8 && message.hasSuffix("."), "\(code): \(message)")
            let error = ServerError(code)
            #expect(error.status == status && error.message == message && error.code == code)
            let body = ServerReply(error.response)
            #expect(body.status == status)
            #expect(body.object as NSDictionary == ["error": code.rawValue, "message": message] as NSDictionary)
        }
    }

    @Test func everyVariantKeepsItsCodesWireStringUnderAnotherStatus() {
        for variant in ServerError.Variant.allCases {
            let (status, message) = variant.answer
            #expect((400...599).contains(status))
            #expect(status != variant.code.answer.status, "\(variant) must differ from \(variant.code)'s row")
            #expect(message != variant.code.answer.message)
            let error = ServerError(variant)
            #expect(error.code == variant.code && error.status == status && error.message == message)
            #expect(ServerReply(error.response).errorCode == variant.code.rawValue)
        }
        #expect(ServerError(.crossOriginWrite).status == 403 && ServerError(.originMismatch).status == 400)
        #expect(ServerError(.unverifiedNotification).status == 401 && ServerError(.invalidNotification).status == 400)
    }

    /// `method_not_allowed` is answered by the HTTP layer (for a method libevent does not parse) and by the server
    /// (for a known path), `rate_limited` by the HTTP layer (the suspect lane full) and by the server (its rate limits):
    /// one meaning, one status, the same wire string.
    @Test func theCodeTheHTTPLayerSharesMeansTheSame() {
        #expect(ErrorResponse.Code.methodNotAllowed.rawValue == ServerError.Code.methodNotAllowed.rawValue)
        #expect(ServerError.Code.methodNotAllowed.answer.status == 405)
        #expect(ErrorResponse.Code.rateLimited.rawValue == ServerError.Code.rateLimited.rawValue)
        #expect(ServerError.Code.rateLimited.answer.status == 429)
    }

    @Test func coreErrorsMapToTheirCodesWithTheStepAndWithoutTheReason() {
        let reason = "client data origin is https://evil.test"
        let cases: [(WebAuthnError.Code, ServerError.Code)] = [
            (.userNotVerified, .userVerificationRequired), (.signCountNotIncreased, .possibleClone),
            (.algorithmNotAllowed, .algorithmNotAllowed), (.originMismatch, .originMismatch), (.topOriginMismatch, .originMismatch),
            (.crossOriginNotAllowed, .originMismatch), (.challengeMismatch, .verificationFailed),
            (.assertionInvalidSignature, .verificationFailed), (.attestationInvalidSignature, .verificationFailed),
        ]
        for (core, server) in cases {
            let error = ServerError.verification(WebAuthnError(core, reason))
            #expect(error.code == server, "\(core)")
            #expect(error.step == core.rawValue)
            #expect(error.message == server.answer.message)
            #expect(error.detail == reason)
            let reply = ServerReply(error.response)
            #expect(reply.object["step"] as? String == core.rawValue)
            #expect(!reply.text.contains("evil.test"), "the core's reason reached the client: \(reply.text)")
        }
    }

    @Test func storageErrorsMapToConflictsOrUnavailable() {
        let cases: [(StorageError.Code, ServerError.Code)] = [
            (.usernameTaken, .usernameTaken), (.externalIDTaken, .externalIdTaken), (.credentialExists, .credentialExists),
            (.appleIdentityTaken, .appleIdentityTaken),
            (.notFound, .notFound), (.unavailable, .storageUnavailable), (.migrationFailed, .storageUnavailable),
            (.migrationRefused, .storageUnavailable),
            (.duplicateKey, .storageUnavailable), (.signCountNotIncreased, .storageUnavailable), (.notEmpty, .storageUnavailable),
            (.invalidRecord, .storageUnavailable), (.challengeSpent, .challengeUnknown), (.federatedIdentityTaken, .identityTaken),
            (.userDisabled, .accountDisabled),
            // Handled by the sign-in (verified again from a fresh read, once), then its own stable code.
            (.credentialChanged, .passkeyChanged),
        ]
        #expect(Set(cases.map(\.0)) == Set(StorageError.Code.allCases))
        for (storage, server) in cases {
            let error = ServerError.storage(StorageError(storage, "SQLite step failed: disk I/O error"))
            #expect(error.code == server, "\(storage)")
            #expect(!error.response.body.contains(Array("disk I/O".utf8)))
            if server == .storageUnavailable { #expect(error.detail?.contains("disk I/O error") == true) }
        }
    }

    // MARK: the error reference (docs/reference/errors.md)

    static let page = "reference/errors.md"

    /// The rows of the page's table that follows `heading` (the first `| code | status | meaning |` after it):
    /// each row's code and statuses.
    static func documentedTable(after heading: String) throws -> [(code: String, statuses: String)] {
        try DocumentationPage(page).tables(header: "| code | status | meaning |", after: heading).map { cells in
            (cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[1])
        }
    }

    @Test func theErrorReferenceListsEveryServerCodeWithItsStatuses() throws {
        let rows = try Self.documentedTable(after: "status is assigned in one table")
        var expected: [String: [Int]] = [:]
        for code in ServerError.Code.allCases { expected[code.rawValue] = [code.answer.status] }
        for variant in ServerError.Variant.allCases { expected[variant.code.rawValue, default: []].append(variant.answer.status) }
        #expect(rows.map(\.code).sorted() == expected.keys.sorted(), "docs/\(Self.page) must list exactly the codes of ServerError")
        #expect(Set(rows.map(\.code)).count == rows.count, "docs/\(Self.page): a code has two rows")
        for row in rows {
            let statuses = row.statuses.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            #expect(statuses == expected[row.code]?.sorted(), "docs/\(Self.page): \(row.code) is \(row.statuses)")
        }
    }

    @Test func theErrorReferenceListsEveryCodeOfTheHTTPLayer() throws {
        let rows = try Self.documentedTable(after: "The HTTP layer answers a few requests itself")
        #expect(
            rows.map(\.code).sorted() == ErrorResponse.Code.allCases.map(\.rawValue).sorted(),
            "docs/\(Self.page) must list exactly the codes of the HTTP layer"
        )
    }
}
