#if canImport(Glibc)
import Glibc
#endif

/// The store's one writer connection behind a plain pthread mutex. A writer holds it for whole statements and
/// transactions (tens of microseconds to an `fsync`), so a waiter sleeps at once in the kernel instead of spinning
/// first the way `Synchronization.Mutex` does: on two cores that spinning took 5 % of the server's CPU under
/// sign-in load, on a lock whose holder was often the very thread the spinner kept off the other core.
///
/// `@unchecked Sendable`: `connection` is only touched under `mutex`.
final class SQLiteWriterLock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var connection: SQLiteConnection?

    init(_ connection: SQLiteConnection) {
        self.connection = connection
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    /// Runs `body` with the connection (nil once closed) held alone.
    func withConnection<Result, Failure: Error>(_ body: (SQLiteConnection?) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body(connection)
    }

    /// Drops the connection (SQLite closes it when the last reference goes); later calls see nil.
    func close() {
        pthread_mutex_lock(&mutex)
        connection = nil
        pthread_mutex_unlock(&mutex)
    }
}
