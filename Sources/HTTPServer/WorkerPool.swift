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
/// `@unchecked Sendable`: the queue and the state are only touched under `condition`'s mutex.
final class WorkerPool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var queue: [Job] = []
    private var head = 0
    private var isStopping = false
    private var refusals = 0
    private var threads: [pthread_t] = []
    private let maximumQueued: Int

    /// Starts `count` threads; at most `maximumQueued` jobs wait for one.
    init(threads count: Int, maximumQueued: Int) throws(HTTPServerError) {
        self.maximumQueued = maximumQueued
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
        for _ in 0..<count {
            switch LoopThread.start({ [self] in work() }) {
            case .success(let thread):
                threads.append(thread)
            case .failure(let failure):
                stop()
                throw HTTPServerError(.eventLoopFailed, failure.reason)
            }
        }
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    /// Queues `job`; false (and nothing queued) when the queue is full or the pool is stopping.
    func submit(_ job: @escaping Job) -> Bool {
        pthread_mutex_lock(&mutex)
        let queued = !isStopping && queue.count - head < maximumQueued
        if queued {
            queue.append(job)
        } else if !isStopping {
            refusals += 1
        }
        pthread_mutex_unlock(&mutex)
        // Signalled once the mutex is free, so that the worker it wakes does not block on it at once (a second wait
        // and a second context switch).
        if queued { pthread_cond_signal(&condition) }
        return queued
    }

    /// The jobs waiting for a thread now.
    var queuedCount: Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return queue.count - head
    }

    /// The jobs refused so far because the queue was full (each answered `503 server_busy`).
    var refusedCount: Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return refusals
    }

    /// Drops the jobs still queued (never started: nothing of them happened), waits for the running ones to end and
    /// joins the threads. Idempotent; not callable from a worker.
    func stop() {
        pthread_mutex_lock(&mutex)
        isStopping = true
        queue.removeAll()
        head = 0
        let running = threads
        threads.removeAll()
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
        for thread in running { pthread_join(thread, nil) }
    }

    private func work() {
        while let job = next() { job() }
    }

    /// The next job, waiting for one; nil once the pool stops.
    private func next() -> Job? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while !isStopping && head == queue.count {
            pthread_cond_wait(&condition, &mutex)
        }
        guard !isStopping else { return nil }
        let job = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return job
    }
}
