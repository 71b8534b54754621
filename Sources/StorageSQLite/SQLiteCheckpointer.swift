import CSQLite
import Foundation
import Storage
import SystemThreads

#if canImport(Glibc)
import Glibc
#endif

/// Checkpoints the WAL of a database file on a thread and connection of its own, off the commit path. SQLite's
/// automatic checkpoint runs in the connection whose commit crossed its threshold (1,000 frames): there it held the
/// group commit of every ceremony waiting behind it while it synced the WAL, copied about a hundred pages into the
/// database file and synced that (about 6 times per 1,000 sign-ins). Now a commit only wakes this thread, for every
/// `wakeFrames` frames added to the WAL (`sqlite3_wal_hook`, which replaces the automatic checkpoint), and the thread
/// runs a PASSIVE checkpoint, which copies what no reader still needs while the writer goes on committing.
///
/// The WAL restarts from its beginning only when a write begins with all of it copied, which a checkpoint running
/// beside back-to-back commits seldom leaves. So the WAL grows under load until `fallbackFrames`, where the writer
/// checkpoints in its commit (as SQLite's automatic checkpoint did, but with only the frames since the thread's last
/// checkpoint left to copy) and the next write restarts it. That fallback also bounds the WAL when the thread is
/// behind or failed; `journal_size_limit` cuts the file back to `walSizeLimit` when a reader kept it from
/// restarting for longer.
///
/// A checkpoint never loses a committed frame: its connection runs at `synchronous=FULL`, so SQLite syncs the WAL
/// before copying its frames and the database file before the WAL may restart.
///
/// `@unchecked Sendable`: `isWanted`, `framesAtWake`, `isStopped` and `finished` are only touched under `mutex`;
/// `connection` only by the thread (and by `stop` once the thread has ended).
final class SQLiteCheckpointer: @unchecked Sendable {
    /// A commit wakes the thread for every this many frames added to the WAL (SQLite's automatic checkpoint's default
    /// threshold).
    static let wakeFrames: Int32 = 1000
    /// The WAL frames past which the writer checkpoints in its own commit (about 16 MiB of 4 KiB pages).
    static let fallbackFrames: Int32 = 4000
    /// The size the WAL file is cut back to when it restarts, above what `fallbackFrames` makes it (bytes): a file
    /// cut back at every restart would grow again, and a commit that grows it syncs its size as well.
    static let walSizeLimit = 32 * 1024 * 1024

    private var connection: SQLiteConnection?
    /// Allocated, not stored `pthread_*_t` values: a mutex must not move, and Swift does not promise a stored property's
    /// address.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    private let condition: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)
    private var isWanted = false
    /// The WAL's frames when a commit last woke the thread.
    private var framesAtWake: Int32 = 0
    private var isStopped = false
    private var thread: pthread_t?
    private var finished = 0

    /// Opens the checkpoint connection to the WAL database at `path`; `start` starts its thread.
    init(path: String) throws(SQLiteError) {
        // First, so that `deinit` finds them made whatever throws below.
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        let connection = try SQLiteConnection(path: path)
        try connection.setBusyTimeout(milliseconds: SQLiteStore.busyTimeoutMilliseconds)
        try connection.setDurableCommits(true)
        self.connection = connection
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Starts the thread and hands the writer's checkpoints to it: `writer`'s commits wake it (its automatic checkpoint
    /// off) and the WAL file is cut back to `walSizeLimit` when it restarts. The writer must not outlive `stop()`.
    func start(writer: SQLiteConnection) throws(StorageError) {
        do throws(SQLiteError) {
            try writer.execute("PRAGMA journal_size_limit = \(Self.walSizeLimit)")
        } catch {
            throw error.storageError
        }
        // The thread holds the checkpointer until it returns.
        guard case .success(let thread) = NamedThread.start(named: "passkeyd-ckpt", { [self] in run() }) else {
            throw StorageError(.unavailable, "starting the checkpoint thread failed")
        }
        self.thread = thread
        sqlite3_wal_hook(
            writer.handle,
            { context, handle, _, frames in
                guard let context else { return SQLITE_OK }
                Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(frames: frames, handle: handle)
                return SQLITE_OK
            },
            Unmanaged.passUnretained(self).toOpaque()
        )
    }

    /// Ends the thread once its checkpoint in progress has ended, and closes its connection. Idempotent.
    func stop() {
        pthread_mutex_lock(mutex)
        isStopped = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
        if let thread {
            pthread_join(thread, nil)
            self.thread = nil
        }
        connection = nil
    }

    /// Whether the thread was started and not stopped (tests; read by the thread that started or stopped it).
    var isRunning: Bool { thread != nil }

    /// How many checkpoints the thread has run (tests).
    var checkpointCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return finished
    }

    /// After each commit of the writer, with the frames its WAL now holds (SQLite's WAL hook, on the writer's thread).
    private func committed(frames: Int32, handle: OpaquePointer?) {
        if frames >= Self.fallbackFrames {
            sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        } else if frames >= Self.wakeFrames {
            pthread_mutex_lock(mutex)
            // Fewer frames than at the last wake: the WAL restarted since.
            if frames < framesAtWake { framesAtWake = 0 }
            if frames - framesAtWake >= Self.wakeFrames {
                framesAtWake = frames
                isWanted = true
                pthread_cond_signal(condition)
            }
            pthread_mutex_unlock(mutex)
        }
    }

    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            while !isWanted && !isStopped { pthread_cond_wait(condition, mutex) }
            if isStopped { break }
            isWanted = false
            pthread_mutex_unlock(mutex)
            // A failure (a busy checkpoint lock, an I/O error) leaves the frames in the WAL: the next commit past the
            // threshold wakes the thread again, and the writer's fallback bounds the WAL meanwhile.
            if let handle = connection?.handle {
                sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            pthread_mutex_lock(mutex)
            finished += 1
        }
        pthread_mutex_unlock(mutex)
    }
}
