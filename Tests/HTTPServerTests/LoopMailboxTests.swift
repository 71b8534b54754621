import Foundation
import LibEvent
import Synchronization
import Testing

@testable import HTTPServer

/// Issue 44: a loop's mailbox wakes the loop through its own `eventfd`, signalled by the post that finds it empty and
/// outside its lock: no delivery is lost to that, each runs on the loop's thread, and a post after `close` is dropped.
@Suite struct LoopMailboxTests {
    @Test func postsFromManyThreadsAllRunOnTheLoopThreadAndNoneAfterClose() throws {
        try #require(LibEventSetup.isReady, "libevent thread-aware, as an HTTPServer makes it (for requestStop)")
        let workers = try WorkerPool(threads: 1, maximumQueued: 1)
        defer { workers.stop() }
        let loop = try EventLoop(
            connections: ConnectionCounter(),
            reports: ThrottledLog(interval: 10, log: .discarding),
            workers: workers,
            suspects: nil
        )
        try loop.start()
        let (threads, posts) = (4, 2_000)
        let delivered = Atomic<Int>(0)
        let offTheLoop = Atomic<Int>(0)
        let posted = Atomic<Int>(0)
        for _ in 0..<threads {
            Thread.detachNewThread {
                for index in 0..<posts {
                    loop.mailbox.post {
                        delivered.add(1, ordering: .relaxed)
                        if EventLoop.current !== loop { offTheLoop.add(1, ordering: .relaxed) }
                    }
                    // Now and then the loop catches up, so that posts find the mailbox empty again and signal.
                    if index % 64 == 0 { usleep(200) }
                }
                posted.add(1, ordering: .relaxed)
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while delivered.load(ordering: .relaxed) < threads * posts && Date() < deadline { usleep(5_000) }
        #expect(delivered.load(ordering: .relaxed) == threads * posts)
        #expect(offTheLoop.load(ordering: .relaxed) == 0)
        while posted.load(ordering: .relaxed) < threads && Date() < deadline { usleep(5_000) }
        loop.requestStop()
        loop.join()
        loop.close()
        loop.mailbox.post { delivered.add(1, ordering: .relaxed) }
        #expect(delivered.load(ordering: .relaxed) == threads * posts, "dropped after close")
    }
}
