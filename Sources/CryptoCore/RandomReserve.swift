import Synchronization

/// Random bytes drawn from `source` at once and handed out in order, each byte once, then from `source` again when they
/// run out: how a request that needs several random values (a session's token and ID, its events' IDs) makes one draw
/// instead of one each. Every draw from OpenSSL costs a system call (OpenSSL 3 checks for a fork with `getpid` on each
/// `RAND_bytes`). A reserve serves one request: what it holds becomes that request's values and nobody else's.
public final class RandomReserve: RandomSource {
    private let source: any RandomSource
    private let reserve: Mutex<ArraySlice<UInt8>>

    /// Draws `count` bytes from `source` now.
    public init(drawing count: Int, from source: any RandomSource) {
        self.source = source
        reserve = Mutex(source.bytes(count: count)[...])
    }

    public func bytes(count: Int) -> [UInt8] {
        let taken = reserve.withLock { reserve -> [UInt8]? in
            guard count <= reserve.count else { return nil }
            defer { reserve.removeFirst(count) }
            return Array(reserve.prefix(count))
        }
        return taken ?? source.bytes(count: count)
    }
}
