import AppleSignIn
import CBOR
import ConfigurationReading
import CryptoCore
import HTTPEdge
import MailTransport
import OpenIDConnect
import PasswordHashes
import Storage
import UserImport
import WebAuthnCore
import Webhooks

@testable import HTTPServer
@testable import OutboundHTTP
@testable import RelyingPartyServer
@testable import StoragePostgres
@testable import StorageSQLite
@testable import passkeyd

/// Every error code type of passkeyd, in one list: a module (or driver) that gains a `Code` type adds one line here.
/// `ErrorCodeSpellingTests` finds every `Code` definition in `Sources/` and fails for one that is not listed.
enum ErrorCodeRegistry {
    struct Entry: Sendable {
        let type: String
        let wireStrings: [String]
    }

    static let entries: [Entry] = [
        Entry(type: "WebAuthnError.Code", wireStrings: WebAuthnError.Code.allCases.map(\.rawValue)),
        Entry(type: "CBORError.Code", wireStrings: CBORError.Code.allCases.map(\.rawValue)),
        Entry(type: "CryptoError.Code", wireStrings: CryptoError.Code.allCases.map(\.rawValue)),
        Entry(type: "AppleSignInError.Code", wireStrings: AppleSignInError.Code.allCases.map(\.rawValue)),
        Entry(type: "PasswordHashError.Code", wireStrings: PasswordHashError.Code.allCases.map(\.rawValue)),
        Entry(type: "OpenIDConnectError.Code", wireStrings: OpenIDConnectError.Code.allCases.map(\.rawValue)),
        Entry(type: "StorageError.Code", wireStrings: StorageError.Code.allCases.map(\.rawValue)),
        Entry(type: "SQLiteError.Code", wireStrings: SQLiteError.Code.allCases.map(\.rawValue)),
        Entry(type: "PostgresError.Code", wireStrings: PostgresError.Code.allCases.map(\.rawValue)),
        Entry(type: "HTTPServerError.Code", wireStrings: HTTPServerError.Code.allCases.map(\.rawValue)),
        Entry(type: "HTTPClientError.Code", wireStrings: HTTPClientError.Code.allCases.map(\.rawValue)),
        Entry(type: "ErrorResponse.Code", wireStrings: ErrorResponse.Code.allCases.map(\.rawValue)),
        Entry(type: "ServerError.Code", wireStrings: ServerError.Code.allCases.map(\.rawValue)),
        Entry(type: "ConfigurationError.Code", wireStrings: ConfigurationError.Code.allCases.map(\.rawValue)),
        Entry(type: "CommandLineError.Code", wireStrings: CommandLineError.Code.allCases.map(\.rawValue)),
        Entry(type: "WebhookError.Code", wireStrings: WebhookError.Code.allCases.map(\.rawValue)),
        Entry(type: "MailError.Code", wireStrings: MailError.Code.allCases.map(\.rawValue)),
        Entry(type: "UserImportError.Code", wireStrings: UserImportError.Code.allCases.map(\.rawValue)),
    ]

    /// Wire strings two code types define on purpose: the HTTP layer answers `method_not_allowed` before any handler
    /// for a method libevent does not parse, and the server for a known path asked with another method; and
    /// `rate_limited`, the server's for its rate limits and the HTTP layer's when the suspect lane is full.
    static let sharedWireStrings: Set<String> = [ErrorResponse.Code.methodNotAllowed.rawValue, ErrorResponse.Code.rateLimited.rawValue]
}
