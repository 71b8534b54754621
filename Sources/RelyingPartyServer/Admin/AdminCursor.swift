import CryptoCore
import HTTPEdge

/// The admin API's opaque cursors: base64url of what the next page starts after, bound to the query it was given for
/// (a cursor of another query is `400 invalid_cursor`). Not secret, only opaque: clients pass them back unchanged.
enum AdminCursor {
    static func make(name: String, query: String) -> String {
        Base64URL.encode(Array("u\u{0}\(query)\u{0}\(name)".utf8))
    }

    /// The username the page starts after.
    static func name(_ cursor: String, query: String) throws(ServerError) -> String {
        let parts = try fields(cursor, kind: "u")
        guard parts.count == 2, parts[0] == query, !parts[1].isEmpty else { throw ServerError(.invalidCursor) }
        return parts[1]
    }

    static func make(deliveryID: Int64, status: String?) -> String {
        Base64URL.encode(Array("d\u{0}\(status ?? "")\u{0}\(deliveryID)".utf8))
    }

    /// The delivery ID the page starts after.
    static func deliveryID(_ cursor: String, status: String?) throws(ServerError) -> Int64 {
        let parts = try fields(cursor, kind: "d")
        guard parts.count == 2, parts[0] == status ?? "", let id = Int64(parts[1]), id > 0 else { throw ServerError(.invalidCursor) }
        return id
    }

    static func make(mailID: Int64, status: String?) -> String {
        Base64URL.encode(Array("m\u{0}\(status ?? "")\u{0}\(mailID)".utf8))
    }

    /// The mail outbox ID the page starts after.
    static func mailID(_ cursor: String, status: String?) throws(ServerError) -> Int64 {
        let parts = try fields(cursor, kind: "m")
        guard parts.count == 2, parts[0] == status ?? "", let id = Int64(parts[1]), id > 0 else { throw ServerError(.invalidCursor) }
        return id
    }

    static func make(suppressionKey key: String) -> String {
        Base64URL.encode(Array("s\u{0}\(key)".utf8))
    }

    /// The suppression key (`MailSuppression.key`) the page starts after.
    static func suppressionKey(_ cursor: String) throws(ServerError) -> String {
        let parts = try fields(cursor, kind: "s")
        guard parts.count == 1, !parts[0].isEmpty else { throw ServerError(.invalidCursor) }
        return parts[0]
    }

    private static func fields(_ cursor: String, kind: String) throws(ServerError) -> [String] {
        guard cursor.utf8.count <= 2048, let bytes = Base64URL.decode(cursor), let text = String(validating: bytes, as: UTF8.self) else {
            throw ServerError(.invalidCursor)
        }
        let parts = text.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
        guard parts.first == kind else { throw ServerError(.invalidCursor) }
        return Array(parts.dropFirst())
    }
}
