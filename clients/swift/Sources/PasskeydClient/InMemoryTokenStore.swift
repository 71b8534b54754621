import Foundation

/// A `TokenStore` that forgets the session when the process ends (tests, previews).
public final class InMemoryTokenStore: TokenStore, @unchecked Sendable {
    // @unchecked: `session` is only touched under `lock`.
    private let lock = NSLock()
    private var session: StoredSession?

    public init(_ session: StoredSession? = nil) {
        self.session = session
    }

    public func load() throws -> StoredSession? {
        lock.lock()
        defer { lock.unlock() }
        return session
    }

    public func save(_ session: StoredSession?) throws {
        lock.lock()
        defer { lock.unlock() }
        self.session = session
    }
}
