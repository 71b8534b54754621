import Storage
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Group commit for the ceremonies' final writes: the writes that arrive while a commit is on its way to the disk
/// wait for it to end, and the first of them then commits them all at once (`SQLiteStore.commitBatch`: one
/// `BEGIN IMMEDIATE` transaction, one savepoint per write, one `fsync`). A caller returns only once the commit that
/// holds its write is durable; what a write or the commit threw is thrown to that write's caller.
///
/// Each waiting write parks on a semaphore of its own, and is woken once: by the thread that committed it (its write
/// is done), or, when its write is the first of those that arrived during a commit, by that commit's thread to lead
/// the next one. A shared condition variable cost about 3.7 `futex` calls per sign-in with 8 connections: its
/// broadcast woke the writes of the next batch too, which went back to sleep, and every woken writer took the mutex
/// back at once, contended (a wait and a wake each).
///
/// `@unchecked Sendable`: `waiting`, `isCommitting` and `sizes` are only touched under `mutex`; an entry's `error`
/// and `role` are written before its semaphore is posted and read by its writer after its wait returns.
final class SQLiteCommitGroup: @unchecked Sendable {
    typealias Write = (SQLiteRecords) throws(StorageError) -> Void

    /// The most writes one commit holds.
    static let maximumBatch = 64

    private final class Entry {
        /// Why a parked writer was woken.
        enum Role { case waiting, done, leading }

        let write: Write
        var error: StorageError?
        var role = Role.waiting
        /// Allocated, not a stored `sem_t`: a semaphore must not move.
        let wakeUp: UnsafeMutablePointer<sem_t> = .allocate(capacity: 1)

        init(_ write: @escaping Write) {
            self.write = write
            sem_init(wakeUp, 0, 0)
        }

        deinit {
            sem_destroy(wakeUp)
            wakeUp.deallocate()
        }
    }

    /// Allocated, not stored `pthread_*_t` values: a mutex must not move, and Swift does not promise a stored property's
    /// address.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    private var waiting: [Entry] = []
    private var isCommitting = false
    private var sizes: [Int] = []
    private let parkedWrites = Atomic<Int>(0)
    private let wakeUps = Atomic<Int>(0)

    init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `write` in a commit shared with the writes waiting meanwhile; `commitBatch` commits a batch and returns
    /// each write's error (nil for those that are durable now).
    func commit(_ write: @escaping Write, commitBatch: ([Write]) -> [StorageError?]) throws(StorageError) {
        let entry = Entry(write)
        pthread_mutex_lock(mutex)
        waiting.append(entry)
        if isCommitting {
            pthread_mutex_unlock(mutex)
            park(entry)
            if entry.role == .done {
                if let error = entry.error { throw error }
                return
            }
            pthread_mutex_lock(mutex)
        } else {
            isCommitting = true
        }
        // Leading: this write is the first waiting (nothing waits while no commit runs, and a leader hands over to the
        // first of those that arrived during its commit), so the batch holds it.
        let batch = Array(waiting.prefix(Self.maximumBatch))
        waiting.removeFirst(batch.count)
        pthread_mutex_unlock(mutex)
        let errors = commitBatch(batch.map(\.write))
        pthread_mutex_lock(mutex)
        sizes.append(batch.count)
        if sizes.count > 1024 { sizes.removeFirst(sizes.count - 1024) }
        let next = waiting.first
        isCommitting = next != nil
        pthread_mutex_unlock(mutex)
        // Posted once the mutex is free, so that no woken writer blocks on it at once.
        for (member, error) in zip(batch, errors) {
            member.error = error
            member.role = .done
            if member !== entry { wake(member) }
        }
        if let next {
            next.role = .leading
            wake(next)
        }
        if let error = entry.error { throw error }
    }

    /// Waits until `entry`'s role is set: one wait, woken once.
    private func park(_ entry: Entry) {
        parkedWrites.add(1, ordering: .relaxed)
        while sem_wait(entry.wakeUp) != 0 && errno == EINTR {}
    }

    /// Wakes the parked (or parking) `entry`, its role set.
    private func wake(_ entry: Entry) {
        wakeUps.add(1, ordering: .relaxed)
        sem_post(entry.wakeUp)
    }

    /// How many writes each recent commit held, oldest first (the last 1,024).
    var batchSizes: [Int] {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return sizes
    }

    /// How many writes waited for another thread's commit, and how many wake-ups were posted to waiting writers (tests:
    /// one each: a second post to one writer, or a post to one that never waits, would make them differ).
    var waits: (writes: Int, wakeUps: Int) {
        (parkedWrites.load(ordering: .relaxed), wakeUps.load(ordering: .relaxed))
    }
}
