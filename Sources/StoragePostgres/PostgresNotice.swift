import CLibPQ

/// A message PostgreSQL sent that is not a statement's answer: a `NOTICE` or `WARNING`, or the `FATAL` with which it
/// closes a connection (a shutdown, an administrator's command). libpq prints these on standard error by default,
/// which would break a log of one JSON object per line: the store hands them to its owner instead, to log as JSON.
public struct PostgresNotice: Sendable, Equatable {
    /// `NOTICE`, `WARNING`, `FATAL` … (never translated).
    public let severity: String
    /// The SQLSTATE (`42P07`, `57P01` …).
    public let code: String
    /// PostgreSQL's primary message, at most `maximumMessageLength` bytes of it.
    public let message: String

    public static let maximumMessageLength = 300

    /// A notice of passkeyd's own about its connections (a listener that lost its connection), logged like the server's.
    init(severity: String, message: String) {
        self.severity = severity
        code = ""
        self.message = String(String(decoding: message.utf8.prefix(Self.maximumMessageLength), as: UTF8.self))
    }

    init(_ result: OpaquePointer) {
        func field(_ code: Character, _ fallback: String) -> String {
            guard let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return fallback }
            return String(cString: value)
        }
        severity = String(field("V", field("S", "NOTICE")).prefix(16))
        code = String(field("C", "").prefix(5))
        message = String(String(decoding: field("M", "").utf8.prefix(Self.maximumMessageLength), as: UTF8.self))
    }
}

/// The receiver a connection's notices go to, kept alive by the connection (libpq holds a raw pointer to it).
final class PostgresNoticeReceiver: Sendable {
    let receive: @Sendable (PostgresNotice) -> Void

    init(_ receive: @escaping @Sendable (PostgresNotice) -> Void) {
        self.receive = receive
    }

    /// Installs `self` on `connection`: libpq calls `deliver` with it for every notice.
    func install(on connection: OpaquePointer) {
        PQsetNoticeReceiver(
            connection,
            { context, result in
                guard let context, let result else { return }
                Unmanaged<PostgresNoticeReceiver>.fromOpaque(context).takeUnretainedValue().receive(PostgresNotice(result))
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
    }
}
