/// The worker pool's lower-priority lane for client addresses with recent refusals (`HTTPServerConfiguration.suspectLane`).
///
/// A flood of requests that must be refused (forged assertions, guessed passwords, ID tokens naming unknown keys)
/// costs the server the same work as a genuine sign-in until the last check fails. An address whose requests were
/// refused `refusals` times (`400`, `401`, `403`), the last of them within `seconds`, is a suspect: its requests
/// that go to the worker pool run on the lane's own `workers` threads, whose scheduling priority is lowered by
/// `niceness` (`setpriority`), and wait in the lane's own queue of at most `maximumQueued`; one more is answered
/// `429 rate_limited` with `Retry-After` at once. Every other address's requests keep the pool's threads and queue:
/// a flooded lane never refuses them, nor takes their threads or places in the queue. It still shares the store
/// with them; an SQLite store runs the writes of a niced thread on a thread of its own priority
/// (`SQLiteWriterHandoff`), so a suspect never holds the writer's lock at the lane's priority.
///
/// A `429` is not a refusal that counts: the rate limits' `429` is answered on the event loop at little cost, and
/// counting the lane's own would keep a shed client that retries a suspect for as long as it retries.
public struct SuspectLane: Sendable, Equatable {
    /// The lane's threads (1–64).
    public var workers: Int
    /// The most suspect requests waiting for one of them (1–100,000).
    public var maximumQueued: Int
    /// The refusals that make an address a suspect (1–1,000).
    public var refusals: Int
    /// How long after its last refusal an address stays one, in seconds (1–86,400); a refusal more than this after
    /// the one before starts the count again.
    public var seconds: Int
    /// How much lower the lane's threads run than the rest of the server (0–19, as `nice`).
    public var niceness: Int
    /// The most addresses remembered (1,000–10,000,000): the table of refusals never holds more, whatever the number
    /// of addresses a flood comes from.
    public var maximumAddresses: Int

    /// Creates the lane's settings; every one has a production default.
    public init(
        workers: Int = 2,
        maximumQueued: Int = 64,
        refusals: Int = 3,
        seconds: Int = 600,
        niceness: Int = 10,
        maximumAddresses: Int = 100_000
    ) {
        self.workers = workers
        self.maximumQueued = maximumQueued
        self.refusals = refusals
        self.seconds = seconds
        self.niceness = niceness
        self.maximumAddresses = maximumAddresses
    }

    /// Whether `status` counts as a refusal of the address that asked: a request the server would not do.
    public static func isRefusal(_ status: Int) -> Bool {
        status == 400 || status == 401 || status == 403
    }
}
