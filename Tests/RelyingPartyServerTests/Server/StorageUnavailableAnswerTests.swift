import Foundation
import HTTPEdge
import HTTPServer
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer
@testable import StorageSQLite

/// Issue 42: `503 storage_unavailable` carried no `Retry-After` and said "cannot reach" when the disk was full. Now
/// every one carries `Retry-After`, and its message and the log say what failed.
struct StorageUnavailableAnswerTests {
    let lines = AppleFixture.LogLines()

    /// A registration refused by a SQLite store after `breaking` ran on its writer: the reply to its first write (the
    /// challenge).
    func refusedRegistration(breaking: (SQLiteConnection) throws(SQLiteError) -> Void) throws -> ServerReply {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore(path: folder.path + "/passkeyd.sqlite")
        defer { store.close() }
        let lines = self.lines
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(store: store, log: .messages { line in lines.append(line) })))
        _ = try client.register("carol")
        try store.withConnection(breaking)
        return try client.send("POST", "/webauthn/registration/options", json: Array(#"{"username": "dave"}"#.utf8))
    }

    @Test func aReadOnlyDatabaseSaysSoWithRetryAfter() throws {
        let reply = try refusedRegistration { connection throws(SQLiteError) in try connection.execute("PRAGMA query_only = 1") }
        #expect(reply.status == 503)
        #expect(reply.errorCode == "storage_unavailable")
        #expect(reply.headers["Retry-After"] == "5")
        #expect(reply.object["message"] as? String == "The server's database is read-only and takes no changes; try again later.")
        #expect(lines.all.contains { $0.contains("storage_unavailable (storage.unavailable (readOnly): ") }, "\(lines.all)")
    }

    @Test func aFullDiskSaysSoWithRetryAfter() throws {
        // The database may not grow (SQLITE_FULL without filling a disk), and the challenges' pages are full: small
        // challenges, unexpired, until one more does not fit.
        let reply = try refusedRegistration { connection throws(SQLiteError) in
            let pages = try connection.statement("PRAGMA page_count").run([]) { row throws(SQLiteError) in row.integer(0) }
            _ = try connection.statement("PRAGMA max_page_count = \(pages.first ?? 1)").run([]) { _ throws(SQLiteError) in () }
            let filler = try connection.statement(
                "INSERT INTO challenges (challenge, ceremony, user_id, user_verification, context, expires_at) VALUES (randomblob(32), 'registration', NULL, 'required', x'', 1e12)"
            )
            for _ in 0..<100_000 {
                do throws(SQLiteError) {
                    _ = try filler.run([])
                } catch {
                    guard error.code == .full else { throw error }
                    return
                }
            }
        }
        #expect(reply.status == 503)
        #expect(reply.headers["Retry-After"] == "5")
        #expect(reply.object["message"] as? String == "The server's database is out of disk space; try again later.")
        #expect(lines.all.contains { $0.contains("storage_unavailable (storage.unavailable (noSpace): ") }, "\(lines.all)")
    }

    @Test(arguments: [
        (StorageError.Outage.timedOut, "The server's database did not answer in time; try again shortly."),
        (.unreachable, "The server cannot reach its database; try again shortly."),
    ])
    func everyOutageHasItsMessage(outage: StorageError.Outage, message: String) {
        let error = ServerError.storage(StorageError(.unavailable, "the driver's reason", outage: outage))
        #expect(error.code == .storageUnavailable && error.message == message)
        #expect(error.detail == "storage.unavailable (\(outage.rawValue)): the driver's reason")
        #expect(ServerReply(error.response).headers["Retry-After"] == "5")
    }

    @Test func anUnnamedFailureKeepsTheTablesMessageAndRetryAfter() {
        let error = ServerError.storage(StorageError(.unavailable, "the store is closed"))
        #expect(error.message == ServerError.Code.storageUnavailable.answer.message)
        #expect(ServerReply(error.response).headers["Retry-After"] == "5")
        #expect(ServerReply(ServerError(.rateLimited).response).headers["Retry-After"] == nil, "only storage_unavailable gets one here")
    }

    /// The error page of the browser flows (`/oauth/authorize`, Sign in with Apple on the web) too.
    @Test func anErrorPageSaysWhatFailedWithRetryAfter() {
        let page = ServerReply(OpenIDPages.errorPage(ServerError.storage(StorageError(.unavailable, "reason", outage: .noSpace))))
        #expect(page.status == 503)
        #expect(page.headers["Retry-After"] == "5")
        #expect(page.text.contains("The server's database is out of disk space; try again later."))
    }
}
