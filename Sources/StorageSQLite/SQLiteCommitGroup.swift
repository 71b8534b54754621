import Storage

#if canImport(Glibc)
import Glibc
#endif

/// Group commit for the ceremonies' final writes: the writes that arrive while a commit is on its way to the disk
/// wait for it to end, and the first of them then commits them all at once (`SQLiteStore.commitBatch`: one
/// `BEGIN IMMEDIATE` transaction, one savepoint per write, one `fsync`). A caller returns only once the commit that
/// holds its write is durable; what a write or the commit threw is thrown to that write's caller.
///
/// `@unchecked Sendable`: `waiting`, `isCommitting`, `batchSizes` and the entries' results are only touched under
/// `mutex` (a result is written by the committing thread before it takes the mutex to mark the entry done).
final class SQLiteCommitGroup: @unchecked Sendable {
    typealias Write = (SQLiteRecords) throws(StorageError) -> Void

    /// The most writes one commit holds.
    static let maximumBatch = 64

    private final class Entry {
        let write: Write
        var error: StorageError?
        var isDone = false

        init(_ write: @escaping Write) { self.write = write }
    }

    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var waiting: [Entry] = []
    private var isCommitting = false
    private var sizes: [Int] = []

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    /// Runs `write` in a commit shared with the writes waiting meanwhile; `commitBatch` commits a batch and returns
    /// each write's error (nil for those that are durable now).
    func commit(_ write: @escaping Write, commitBatch: ([Write]) -> [StorageError?]) throws(StorageError) {
        let entry = Entry(write)
        pthread_mutex_lock(&mutex)
        waiting.append(entry)
        var committedOwnWrite = false
        while !entry.isDone {
            guard !isCommitting else {
                pthread_cond_wait(&condition, &mutex)
                continue
            }
            isCommitting = true
            let batch = Array(waiting.prefix(Self.maximumBatch))
            waiting.removeFirst(batch.count)
            pthread_mutex_unlock(&mutex)
            let errors = commitBatch(batch.map(\.write))
            pthread_mutex_lock(&mutex)
            for (member, error) in zip(batch, errors) {
                member.error = error
                member.isDone = true
            }
            sizes.append(batch.count)
            if sizes.count > 1024 { sizes.removeFirst(sizes.count - 1024) }
            isCommitting = false
            if entry.isDone {
                committedOwnWrite = true
            } else {
                // This thread's write waits for the next batch: the writers of this one are woken now.
                pthread_cond_broadcast(&condition)
            }
        }
        pthread_mutex_unlock(&mutex)
        // The batch's writers are woken once the mutex is free, so that none of them blocks on it at once. Each checks
        // its entry under the mutex, and one that arrives meanwhile finds no commit running and leads the next.
        if committedOwnWrite { pthread_cond_broadcast(&condition) }
        if let error = entry.error { throw error }
    }

    /// How many writes each recent commit held, oldest first (the last 1,024).
    var batchSizes: [Int] {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return sizes
    }
}
