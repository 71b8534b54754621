/// The SQL text of a statement a sign-in runs, made once (a `static let`): a connection finds its prepared statement by
/// the query's identity (`SQLiteConnection.statement(_:)`), without building the text or hashing its hundreds of bytes
/// on every call. The connection holds on to the query with its statement, so no other query ever takes its identity.
final class SQLiteQuery: Sendable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static let beginImmediate = SQLiteQuery("BEGIN IMMEDIATE")
    static let commit = SQLiteQuery("COMMIT")
}
