import LibEvent
import Synchronization

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
/// `@unchecked Sendable`: the queues and the state are only touched under `mutex`.
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

    private var mutex = pthread_mutex_t()
    /// The wake-ups of each lane's threads.
    private var cleanCondition = pthread_cond_t()
    private var suspectCondition = pthread_cond_t()
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
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&cleanCondition, nil)
        pthread_cond_init(&suspectCondition, nil)
        let niceness = Int32(lane?.niceness ?? 0)
        let threads = Array(repeating: Lane.clean, count: count) + Array(repeating: Lane.suspect, count: lane?.workers ?? 0)
        for kind in threads {
            switch LoopThread.start({ [self] in work(kind, niceness: niceness) }) {
            case .success(let thread):
                self.threads.append(thread)
            case .failure(let failure):
                stop()
                throw HTTPServerError(.eventLoopFailed, failure.reason)
            }
        }
    }

    deinit {
        pthread_cond_destroy(&cleanCondition)
        pthread_cond_destroy(&suspectCondition)
        pthread_mutex_destroy(&mutex)
    }

    /// Queues `job` in `lane` (a pool without a suspect lane runs every job in the clean one); `.busy` or `.shed`,
    /// and nothing queued, when that queue is full or the pool is stopping.
    func submit(_ job: @escaping Job, lane: Lane = .clean) -> Admission {
        pthread_mutex_lock(&mutex)
        let isSuspect = lane == .suspect && suspect.limit > 0
        let admission: Admission
        if isStopping {
            admission = .busy
        } else if isSuspect {
            admission = suspect.count < suspect.limit ? .queued : .shed
            if admission == .queued {
                suspect.jobs.append(job)
                suspectJobs += 1
            } else {
                sheds += 1
            }
        } else {
            admission = clean.count < clean.limit ? .queued : .busy
            if admission == .queued { clean.jobs.append(job) } else { refusals += 1 }
        }
        pthread_mutex_unlock(&mutex)
        // Signalled once the mutex is free, so that the worker it wakes does not block on it at once (a second wait
        // and a second context switch).
        if admission == .queued {
            if isSuspect { pthread_cond_signal(&suspectCondition) } else { pthread_cond_signal(&cleanCondition) }
        }
        return admission
    }

    /// The jobs waiting for a thread now.
    var queuedCount: Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return clean.count
    }

    /// The jobs refused so far because the queue was full (each answered `503 server_busy`).
    var refusedCount: Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return refusals
    }

    /// The suspect lane's figures: jobs waiting now, jobs queued so far, and jobs refused so far because its queue was
    /// full (each answered `429 rate_limited`).
    var suspectStatistics: (queued: Int, admitted: Int, shed: Int) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return (suspect.count, suspectJobs, sheds)
    }

    /// Drops the jobs still queued (never started: nothing of them happened), waits for the running ones to end and
    /// joins the threads. Idempotent; not callable from a worker.
    func stop() {
        pthread_mutex_lock(&mutex)
        isStopping = true
        clean.clear()
        suspect.clear()
        let running = threads
        threads.removeAll()
        pthread_cond_broadcast(&cleanCondition)
        pthread_cond_broadcast(&suspectCondition)
        pthread_mutex_unlock(&mutex)
        for thread in running { pthread_join(thread, nil) }
    }

    /// A thread's life: a suspect lane's thread first lowers its own scheduling priority (Linux gives each thread its
    /// own nice value, and `setpriority(PRIO_PROCESS, 0, …)` sets the calling thread's; lowering needs no privilege),
    /// then each thread runs its lane's jobs.
    private func work(_ lane: Lane, niceness: Int32) {
        if lane == .suspect && niceness > 0 {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        }
        while let job = next(lane) { job() }
    }

    /// The next job of `lane`, waiting for one; nil once the pool stops.
    private func next(_ lane: Lane) -> Job? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        switch lane {
        case .clean:
            while !isStopping && clean.count == 0 { pthread_cond_wait(&cleanCondition, &mutex) }
            return isStopping ? nil : clean.take()
        case .suspect:
            while !isStopping && suspect.count == 0 { pthread_cond_wait(&suspectCondition, &mutex) }
            return isStopping ? nil : suspect.take()
        }
    }
}
