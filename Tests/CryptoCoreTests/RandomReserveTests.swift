import CryptoCore
import Synchronization
import Testing

@Suite("One random draw for a request's values")
struct RandomReserveTests {
    /// Counts its draws and hands out 1, 2, 3 … across them, so that every byte drawn is distinct and in order.
    final class CountingRandom: RandomSource {
        let draws = Atomic<Int>(0)
        let next = Mutex<UInt8>(1)

        func bytes(count: Int) -> [UInt8] {
            draws.add(1, ordering: .relaxed)
            return next.withLock { next in
                (0..<count).map { _ in
                    defer { next &+= 1 }
                    return next
                }
            }
        }
    }

    @Test func handsOutOneDrawInOrderEachByteOnce() {
        let source = CountingRandom()
        let reserve = RandomReserve(drawing: 64, from: source)
        #expect(reserve.bytes(count: 32) == Array(1...32))
        #expect(reserve.bytes(count: 16) == Array(33...48))
        #expect(reserve.bytes(count: 16) == Array(49...64))
        #expect(source.draws.load(ordering: .relaxed) == 1)
    }

    /// Past the reserve, or for more than is left, each call draws from the source, never a byte handed out before.
    @Test func drawsAgainOnceTheReserveIsShort() {
        let source = CountingRandom()
        let reserve = RandomReserve(drawing: 20, from: source)
        #expect(reserve.bytes(count: 16) == Array(1...16))
        #expect(reserve.bytes(count: 16) == Array(21...36), "4 left: a fresh draw")
        #expect(reserve.bytes(count: 4) == Array(17...20), "the 4 left")
        #expect(reserve.bytes(count: 1) == [37])
        #expect(source.draws.load(ordering: .relaxed) == 3)
    }
}
