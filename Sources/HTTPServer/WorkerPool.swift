import LibEvent
import Synchronization
import SystemThreads

#if canImport(Glibc)
import Glibc
#endif

/// The threads that run handlers whose work may wait (on the disk, a database, the network), so that the event loops
/// keep serving other connections meanwhile. A fixed number of threads takes jobs from one queue of bounded length:
/// when it is full, `submit` refuses at once (the listener answers `503 server_busy` with `Retry-After`) instead of
/// letting requests pile up without bound.
///
/// With a `SuspectLane`, the requests of suspect addresses go to a lane of their own: its own threads, run at a lower
/// scheduling priority, and its own bounded queue (full: the listener answers `429 rate_limited`). The two lanes share
/// nothing but the mutex, so a flooded lane neither delays nor refuses the other's requests.
///
/// An idle thread parks on a semaphore of its own, listed in its lane's stack of parked threads; `submit` takes the
/// thread parked last off that stack (its cache is the warmest) and posts its semaphore once the mutex is free: one
/// wake-up per job, and none when no thread is parked (the busy ones look at the queue before they park). A condition
/// variable cost one more system call per job: glibc marks the mutex contended when `pthread_cond_wait` takes it back,
/// so the woken thread's next unlock made a `futex` wake call even with nobody waiting.
///
/// `@unchecked Sendable`: the queues and the state are only touched under `mutex`; each semaphore is posted by whoever
/// took its thread off a stack (under `mutex`), and waited on by that thread alone.
final class WorkerPool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    /// Which queue and threads a job is for.
    enum Lane { case clean, suspect }

    /// What `submit` did with a job.
    enum Admission: Equatable {
        case queued
        /// Refused: the clean queue is full (or the pool is stopping).
        case busy
        /// Refused: the suspect lane's queue is full.
        case shed
    }

    /// One lane's queue.
    private struct Queue {
        var jobs: [Job] = []
        var head = 0
        let limit: Int

        var count: Int { jobs.count - head }

        mutating func take() -> Job {
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }

        mutating func clear() {
            jobs.removeAll()
            head = 0
        }
    }

    /// Allocated, not a stored `pthread_mutex_t`: a mutex must not move, and Swift does not promise a stored property's
    /// address.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
    /// One semaphore per thread, by the thread's index: its wake-up.
    private let wakeUps: UnsafeMutablePointer<sem_t>
    private let wakeUpCount: Int
    /// The indexes of each lane's parked threads, the one parked last at the end.
    private var cleanParked: [Int] = []
    private var suspectParked: [Int] = []
    private var clean: Queue
    private var suspect: Queue
    private var isStopping = false
    private var refusals = 0
    private var sheds = 0
    private var suspectJobs = 0
    private var threads: [pthread_t] = []

    /// Starts `count` threads, at most `maximumQueued` jobs waiting for one; with `lane`, its threads too.
    init(threads count: Int, maximumQueued: Int, lane: SuspectLane? = nil) throws(HTTPServerError) {
        clean = Queue(limit: maximumQueued)
        suspect = Queue(limit: lane?.maximumQueued ?? 0)
        pthread_mutex_init(mutex, nil)
        let niceness = Int32(lane?.niceness ?? 0)
        let threads = Array(repeating: Lane.clean, count: count) + Array(repeating: Lane.suspect, count: lane?.workers ?? 0)
        wakeUpCount = threads.count
        wakeUps = .allocate(capacity: threads.count)
        for index in threads.indices { sem_init(wakeUps + index, 0, 0) }
        for (index, kind) in threads.enumerated() {
            let name = kind == .clean ? "passkeyd-worker" : "passkeyd-lane"
            switch NamedThread.start(named: name, { [self] in work(kind, index: index, niceness: niceness) }) {
            case .success(let thread):
                self.threads.append(thread)
            case .failure(let failure):
                stop()
                throw HTTPServerError(.eventLoopFailed, failure.reason)
            }
        }
    }

    deinit {
        for index in 0..<wakeUpCount { sem_destroy(wakeUps + index) }
        wakeUps.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Queues `job` in `lane` (a pool without a suspect lane runs every job in the clean one); `.busy` or `.shed`,
    /// and nothing queued, when that queue is full or the pool is stopping.
    func submit(_ job: @escaping Job, lane: Lane = .clean) -> Admission {
        pthread_mutex_lock(mutex)
        let isSuspect = lane == .suspect && suspect.limit > 0
        let admission: Admission
        var woken: Int?
        if isStopping {
            admission = .busy
        } else if isSuspect {
            admission = suspect.count < suspect.limit ? .queued : .shed
            if admission == .queued {
                suspect.jobs.append(job)
                suspectJobs += 1
                woken = suspectParked.popLast()
            } else {
                sheds += 1
            }
        } else {
            admission = clean.count < clean.limit ? .queued : .busy
            if admission == .queued {
                clean.jobs.append(job)
                woken = cleanParked.popLast()
            } else {
                refusals += 1
            }
        }
        pthread_mutex_unlock(mutex)
        // Posted once the mutex is free, so that the thread it wakes does not block on it at once (a second wait and
        // a second context switch).
        if let woken { sem_post(wakeUps + woken) }
        return admission
    }

    /// The jobs waiting for a thread now.
    var queuedCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return clean.count
    }

    /// The jobs refused so far because the queue was full (each answered `503 server_busy`).
    var refusedCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return refusals
    }

    /// The suspect lane's figures: jobs waiting now, jobs queued so far, and jobs refused so far because its queue was
    /// full (each answered `429 rate_limited`).
    var suspectStatistics: (queued: Int, admitted: Int, shed: Int) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return (suspect.count, suspectJobs, sheds)
    }

    /// Drops the jobs still queued (never started: nothing of them happened), waits for the running ones to end and
    /// joins the threads. Idempotent; not callable from a worker.
    func stop() {
        pthread_mutex_lock(mutex)
        isStopping = true
        clean.clear()
        suspect.clear()
        let running = threads
        threads.removeAll()
        let parked = cleanParked + suspectParked
        cleanParked.removeAll()
        suspectParked.removeAll()
        pthread_mutex_unlock(mutex)
        // The threads not parked see `isStopping` before they would park.
        for index in parked { sem_post(wakeUps + index) }
        for thread in running { pthread_join(thread, nil) }
    }

    /// A thread's life: a suspect lane's thread first lowers its own scheduling priority (Linux gives each thread its
    /// own nice value, and `setpriority(PRIO_PROCESS, 0, …)` sets the calling thread's; lowering needs no privilege),
    /// then each thread runs its lane's jobs.
    private func work(_ lane: Lane, index: Int, niceness: Int32) {
        if lane == .suspect && niceness > 0 {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        }
        while let job = next(lane, index: index) { job() }
    }

    /// The next job of `lane` for the thread `index`, parking it until there is one; nil once the pool stops. A post
    /// always follows the thread's removal from its stack, so it never parks twice on one listing; woken, it may find
    /// the job taken by a thread that was busy, and parks again.
    private func next(_ lane: Lane, index: Int) -> Job? {
        while true {
            pthread_mutex_lock(mutex)
            if isStopping {
                pthread_mutex_unlock(mutex)
                return nil
            }
            switch lane {
            case .clean where clean.count > 0:
                let job = clean.take()
                pthread_mutex_unlock(mutex)
                return job
            case .suspect where suspect.count > 0:
                let job = suspect.take()
                pthread_mutex_unlock(mutex)
                return job
            case .clean:
                cleanParked.append(index)
            case .suspect:
                suspectParked.append(index)
            }
            pthread_mutex_unlock(mutex)
            while sem_wait(wakeUps + index) != 0 && errno == EINTR {}
        }
    }
}
