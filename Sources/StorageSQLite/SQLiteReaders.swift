import Storage

#if canImport(Glibc)
import Glibc
#endif

/// Read-only connections to the store's database file, for its single reads (a user, a passkey, a session): in WAL
/// mode they read while the one writer connection commits, so a sign-in's lookups wait neither for the writer's lock
/// nor behind another ceremony's `fsync`. A read sees every commit that ended before it began, which includes every
/// write whose caller has been answered. Opened on first need and kept for reuse: as many as reads ever ran at once,
/// at most `maximumOpen`; past that a read waits for one to be returned.
///
/// `@unchecked Sendable`: `idle`, `open` and `isClosed` are only touched under `mutex`; a connection taken out of
/// `idle` is used by that one caller until it gives it back.
final class SQLiteReaders: @unchecked Sendable {
    /// The most read connections open at once.
    static let maximumOpen = 16

    private let path: String
    /// Allocated, not stored `pthread_*_t` values: a mutex must not move, and Swift does not promise a stored property's
    /// address.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    private let returned: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)
    private var idle: [SQLiteConnection] = []
    private var open = 0
    private var isClosed = false

    init(path: String) {
        self.path = path
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(returned, nil)
    }

    deinit {
        pthread_cond_destroy(returned)
        pthread_mutex_destroy(mutex)
        returned.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` on a read connection of its own. Throws `storage.unavailable` once closed or when no read
    /// connection can be opened.
    func read<Result>(_ body: (SQLiteRecords) throws(StorageError) -> Result) throws(StorageError) -> Result {
        let connection = try take()
        defer { give(connection) }
        let records = SQLiteRecords(connection: connection)
        defer { records.isOpen = false }
        return try body(records)
    }

    /// Closes the idle connections; those in use close when given back. Later reads throw `storage.unavailable`.
    func close() {
        pthread_mutex_lock(mutex)
        isClosed = true
        open -= idle.count
        idle.removeAll()
        pthread_cond_broadcast(returned)
        pthread_mutex_unlock(mutex)
    }

    /// The number of read connections open now (tests).
    var openCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return open
    }

    private func take() throws(StorageError) -> SQLiteConnection {
        pthread_mutex_lock(mutex)
        while !isClosed && idle.isEmpty && open >= Self.maximumOpen {
            pthread_cond_wait(returned, mutex)
        }
        guard !isClosed else {
            pthread_mutex_unlock(mutex)
            throw StorageError(.unavailable, "the store is closed")
        }
        if let connection = idle.popLast() {
            pthread_mutex_unlock(mutex)
            return connection
        }
        open += 1
        pthread_mutex_unlock(mutex)
        do throws(SQLiteError) {
            let connection = try SQLiteConnection(path: path, readOnly: true)
            try connection.setBusyTimeout(milliseconds: SQLiteStore.busyTimeoutMilliseconds)
            return connection
        } catch {
            pthread_mutex_lock(mutex)
            open -= 1
            pthread_cond_signal(returned)
            pthread_mutex_unlock(mutex)
            throw error.storageError
        }
    }

    private func give(_ connection: SQLiteConnection) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if isClosed {
            open -= 1
            return
        }
        idle.append(connection)
        pthread_cond_signal(returned)
    }
}
