import Foundation
import Storage
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A `PasskeyStore` on an SQLite database: WAL journal, `synchronous=FULL` (a call that returned has been
/// made durable), foreign keys with ON DELETE CASCADE from users, and versioned migrations applied at open.
///
/// Except for challenges: `insertChallenge` and `takeChallenge` commit with `synchronous=NORMAL`, without an
/// `fsync`, as `ChallengeStore` allows (and so does `recordSessionUse`, as `SessionStore` allows). Losing an issued challenge to a power loss only makes a client start
/// again. A taken challenge must not come back once its ceremony succeeded, and it does not: in WAL mode every
/// commit appends to the one WAL file, and the next `synchronous=FULL` commit syncs that file whole, earlier
/// commits included; a successful ceremony makes one (`completeAuthentication`, `completeRegistration`) before its
/// client is answered. A sign-in thus costs one `fsync` instead of four (challenge issued, challenge taken, counter
/// recorded, session created).
///
/// Threading: one writer connection behind a `Mutex`. Writes and transactions from any number of threads are
/// serialised, so each sees the connection alone; at `synchronous=FULL` the fsync per commit, not the lock, bounds the
/// rate, which is why the ceremonies' final writes share their commits (`SQLiteCommitGroup`). The single reads of a
/// database file (a user, a passkey, a session by ID or token) run on read-only connections (`SQLiteReaders`), which
/// WAL lets read while the writer commits. Several stores (or processes) may open the same file: SQLite's file locks plus a busy timeout
/// serialise their writes, and every read-then-write (the ceremonies, `transaction`) runs in a BEGIN IMMEDIATE
/// transaction, which takes the database's write lock before its first read: transactions are serial.
///
/// Each record-level operation's SQL is in `SQLiteRecords` (one file per record type); single calls, ceremonies and
/// transactions all run those.
public final class SQLiteStore: PasskeyStore {
    private let connection: Mutex<SQLiteConnection?>
    /// The read connections of a database file (none for an in-memory one, which only its own connection sees).
    let readers: SQLiteReaders?
    /// The WAL checkpoints of a database file, off the commit path (none for an in-memory one, which has no WAL).
    let checkpointer: SQLiteCheckpointer?
    /// The ceremonies' final writes, committed in groups (`SQLiteStore+Ceremonies`).
    let commitGroup = SQLiteCommitGroup()
    /// The writer's sections of threads of lowered priority (the HTTP server's suspect lane), run at the store's.
    let writerHandoff: SQLiteWriterHandoff
    /// How many batches ran again with each write in a savepoint because one of their writes was refused
    /// (`commitBatch`).
    let batchesRunInSavepoints = Atomic<Int>(0)

    /// Opens the database file at `path`, creating its parent folder (0700) and the file (0600, so that SQLite gives
    /// its `-wal` and `-shm` files the same mode) when missing, and migrates it to the latest schema.
    /// - Throws: `storage.unavailable` when the file can't be opened or configured;
    ///   `storage.migrationFailed` when the database is newer than this build or a migration fails.
    public convenience init(path: String) throws(StorageError) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StorageError(.unavailable, "creating the database folder failed")
        }
        // Created private from its first byte; an existing file keeps its mode (start-up warns about a loose one).
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageError(.unavailable, "creating the database file failed") }
        Glibc.close(descriptor)
        try self.init(opening: path, requireWAL: true)
    }

    /// Opens a private, empty in-memory database with the latest schema, for tests. It vanishes on `close()`.
    package static func inMemory() throws(StorageError) -> SQLiteStore {
        try SQLiteStore(opening: ":memory:", requireWAL: false)
    }

    private init(opening path: String, requireWAL: Bool) throws(StorageError) {
        let connection: SQLiteConnection
        let journalMode: String?
        do throws(SQLiteError) {
            connection = try SQLiteConnection(path: path)
            try connection.setBusyTimeout(milliseconds: SQLiteStore.busyTimeoutMilliseconds)
            journalMode = try connection.statement("PRAGMA journal_mode = WAL").run([]) { row throws(SQLiteError) in
                row.text(0)
            }.first
            try connection.setDurableCommits(true)
            try connection.execute("PRAGMA foreign_keys = ON;")
            // Savepoint journals and temporary tables in memory: a group commit's savepoints journal every page that
            // an earlier ceremony of the batch made dirty, and past 64 KiB SQLite spilled that journal to a file it
            // created in /var/tmp (about one per 40 sign-ins under load, on whatever disk /var/tmp is, outside the data
            // folder's protection) and kept the journal in 64 KiB blocks whose free made glibc trim the heap.
            try connection.execute("PRAGMA temp_store = MEMORY;")
        } catch {
            throw error.storageError
        }
        if requireWAL, journalMode?.lowercased() != "wal" {
            throw StorageError(.unavailable, "the database refused the WAL journal mode")
        }
        // The one clock of the store: the time of the events a migration writes.
        try SQLiteMigrations.migrate(connection, now: Date())
        if path == ":memory:" {
            checkpointer = nil
        } else {
            let checkpointer: SQLiteCheckpointer
            do throws(SQLiteError) {
                checkpointer = try SQLiteCheckpointer(path: path)
            } catch {
                throw error.storageError
            }
            try checkpointer.start(writer: connection)
            self.checkpointer = checkpointer
        }
        self.connection = Mutex(connection)
        readers = path == ":memory:" ? nil : SQLiteReaders(path: path)
        // Last: its thread lives until `stop`, which a store that failed to open would never call.
        writerHandoff = SQLiteWriterHandoff()
    }

    /// A store dropped without `close()` still ends the checkpoint thread (which holds its own connection to the file)
    /// and the writer's handoff thread.
    deinit {
        checkpointer?.stop()
        writerHandoff.stop()
    }

    /// Closes the connections. Later calls throw `storage.unavailable`. Idempotent.
    public func close() {
        connection.withLock { connection in
            // Stopped first: the writer's commits call into it, and its connection is closed before the writer's.
            checkpointer?.stop()
            connection = nil
        }
        // Outside the lock: a section handed off meanwhile takes it, finds the store closed and throws.
        writerHandoff.stop()
        readers?.close()
    }

    public func transaction<Result: Sendable>(_ body: (any StoreTransaction) throws(StorageError) -> Result) throws(StorageError) -> Result {
        try withRecords { records throws(StorageError) in
            try records.immediateTransaction { () throws(StorageError) in try body(records) }
        }
    }

    /// Runs `body` with the connection held alone and durable commits, as records: the single calls, the
    /// ceremonies and the transactions all go through here.
    @discardableResult
    func withRecords<Result: Sendable>(
        deferringDurability: Bool = false,
        _ body: (SQLiteRecords) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        try writerHandoff.run { () throws(StorageError) -> Result in
            try connection.withLock { connection throws(StorageError) -> Result in
                guard let connection else { throw StorageError(.unavailable, "the store is closed") }
                do throws(SQLiteError) {
                    try connection.setDurableCommits(!deferringDurability)
                } catch {
                    throw error.storageError
                }
                let records = SQLiteRecords(connection: connection)
                defer { records.isOpen = false }
                return try body(records)
            }
        }
    }

    /// Runs `body` with the connection held alone and durable commits, mapping SQLite failures to `StorageError`.
    @discardableResult
    func withConnection<Result: Sendable>(
        _ body: (SQLiteConnection) throws(SQLiteError) -> Result
    ) throws(StorageError) -> Result {
        try withRecords { records throws(StorageError) in try records.run(body) }
    }

    /// Runs `body` like `withConnection`, but with commits that do not wait for the disk (`synchronous=NORMAL`);
    /// they become durable with the next durable commit. Only for the challenge writes and a session's last use (see
    /// the type's comment).
    @discardableResult
    func withConnectionDeferringDurability<Result: Sendable>(
        _ body: (SQLiteConnection) throws(SQLiteError) -> Result
    ) throws(StorageError) -> Result {
        try withRecords(deferringDurability: true) { records throws(StorageError) in try records.run(body) }
    }

    /// Runs one read outside the writer's lock (`SQLiteReaders`), or on the one connection of an in-memory database.
    func reading<Result: Sendable>(_ body: (SQLiteRecords) throws(StorageError) -> Result) throws(StorageError) -> Result {
        guard let readers else { return try withRecords(body) }
        return try readers.read(body)
    }

    /// The read connections open now (tests).
    package var readConnectionCount: Int { readers?.openCount ?? 0 }

    static let busyTimeoutMilliseconds: Int32 = 5_000
}
