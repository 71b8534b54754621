import Foundation
import Storage
import SystemThreads

#if canImport(Glibc)
import Glibc
#endif

/// Runs the writer's sections of threads whose scheduling priority was lowered on a thread of the store's own
/// priority, so that the writer's lock is never held at a lowered one.
///
/// Linux gives each thread its own nice value, and the HTTP server's suspect lane raises its threads' (`niceness`, 10)
/// so that a flood's handlers yield the cores to everyone else's. But a flood's requests write too (a sealed challenge
/// spent, an unknown one taken, a password's account read in a transaction): a niced thread that holds the writer's
/// lock, or leads a group commit, is preempted by every thread of normal priority and runs again only after them,
/// while a genuine sign-in's final commit waits for the lock behind it. The kernel does not resolve that inversion
/// (its priority-inheriting futexes, which Swift's `Mutex` uses, treat every thread that is not real-time alike), and
/// an unprivileged thread cannot lower its nice value again. So a thread whose nice value is above the one the store
/// was opened with hands each writer section to this type's thread, which runs at that one, and waits for it; the
/// sections of every other thread run where they are called, as before.
///
/// Each thread's nice value is read once (`getpriority`, one system call) and kept in a thread-specific value: a
/// thread that changes its nice value after its first write keeps the answer of its first. The thread is started with
/// the store, by the thread that opens it: a thread inherits its creator's nice value, so one started at the first
/// handoff would run niced itself. It is ended by `stop`, after which sections run where they are called (as they do
/// when it could not be started).
///
/// `@unchecked Sendable`: `jobs`, `thread` and `isStopped` are only touched under `mutex`; a job's result is written
/// by the thread before it takes the mutex to mark the job done, and read by its caller after that.
final class SQLiteWriterHandoff: @unchecked Sendable {
    private final class Job {
        /// Dropped by the thread before the job is marked done: the section it wraps must not outlive its call.
        var body: (() -> Void)?
        var isDone = false

        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// The nice value of the thread that made the store: the priority writer sections run at.
    private let baseline: Int32
    /// Allocated, not stored `pthread_*_t` values: a mutex must not move, and Swift does not promise a stored
    /// property's address.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    private let wanted: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)
    private let done: UnsafeMutablePointer<pthread_cond_t> = .allocate(capacity: 1)
    /// Each thread's nice value plus `Self.offset` (never zero, which reads as not known yet), one key for the process
    /// (a thread's nice value is the same whichever store asks); nil when the process had no key left (then each
    /// section asks the kernel).
    private static let niceKey: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()
    private var jobs: [Job] = []
    private var thread: pthread_t?
    private var isStopped = false
    private var handedOff = 0

    private static let offset = 64

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wanted, nil)
        pthread_cond_init(done, nil)
        baseline = Self.readNice()
        start()
    }

    /// The thread holds the handoff while it runs: a handoff goes only after `stop`.
    deinit {
        pthread_cond_destroy(done)
        pthread_cond_destroy(wanted)
        pthread_mutex_destroy(mutex)
        done.deallocate()
        wanted.deallocate()
        mutex.deallocate()
    }

    /// Runs `section` here, or, on a thread whose nice value is above the store's, on the handoff thread while this
    /// one waits; what it returns or throws is returned or thrown here.
    func run<Result>(_ section: () throws(StorageError) -> Result) throws(StorageError) -> Result {
        guard isLowered else { return try section() }
        return try withoutActuallyEscaping(section) { section throws(StorageError) -> Result in
            var outcome: Swift.Result<Result, StorageError>?
            let job = Job { outcome = Swift.Result { () throws(StorageError) -> Result in try section() } }
            pthread_mutex_lock(mutex)
            guard thread != nil else {
                pthread_mutex_unlock(mutex)
                return try section()
            }
            jobs.append(job)
            handedOff += 1
            pthread_cond_signal(wanted)
            while !job.isDone { pthread_cond_wait(done, mutex) }
            pthread_mutex_unlock(mutex)
            // The job ran (it is done): `outcome` is set.
            return try outcome!.get()
        }
    }

    /// How many sections were handed to the thread so far (tests).
    var handedOffCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return handedOff
    }

    /// Ends the thread once the jobs handed to it have run. Idempotent; later sections run where they are called.
    func stop() {
        pthread_mutex_lock(mutex)
        isStopped = true
        let running = thread
        thread = nil
        pthread_cond_signal(wanted)
        pthread_mutex_unlock(mutex)
        if let running { pthread_join(running, nil) }
    }

    /// Whether the calling thread runs at a lower priority than the store's.
    private var isLowered: Bool {
        guard let niceKey = Self.niceKey else { return Self.readNice() > baseline }
        if let known = pthread_getspecific(niceKey) {
            return Int32(Int(bitPattern: known) - Self.offset) > baseline
        }
        let nice = Self.readNice()
        pthread_setspecific(niceKey, UnsafeRawPointer(bitPattern: Int(nice) + Self.offset))
        return nice > baseline
    }

    /// Starts the thread; without it (`pthread_create` failed) sections run where they are called.
    private func start() {
        // The thread holds the handoff until it returns.
        if case .success(let started) = NamedThread.start(named: "passkeyd-writer", { [self] in work() }) { thread = started }
    }

    /// The thread's life: the jobs in the order they came, until `stop` and none is left.
    private func work() {
        pthread_mutex_lock(mutex)
        while true {
            while jobs.isEmpty && !isStopped { pthread_cond_wait(wanted, mutex) }
            guard !jobs.isEmpty else { break }
            let job = jobs.removeFirst()
            pthread_mutex_unlock(mutex)
            job.body?()
            job.body = nil
            pthread_mutex_lock(mutex)
            job.isDone = true
            pthread_cond_broadcast(done)
        }
        pthread_mutex_unlock(mutex)
    }

    /// The calling thread's nice value (Linux: `PRIO_PROCESS` with 0 names the calling thread).
    private static func readNice() -> Int32 {
        errno = 0
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        return errno == 0 ? nice : 0
    }
}
