import Testing

@testable import CryptoCore

@Suite("Byte arrays built on the stack or in place")
struct ByteArrayBuilderTests {
    @Test(arguments: [0, 1, 32, ByteArrayBuilder.stackLimit, ByteArrayBuilder.stackLimit + 1, 5000])
    func holdsWhatTheWriteWrote(capacity: Int) {
        let bytes = ByteArrayBuilder.build(capacity: capacity) { buffer -> Int in
            for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: index * 7) }
            return buffer.count
        }
        #expect(bytes == (0..<capacity).map { UInt8(truncatingIfNeeded: $0 * 7) })
    }

    @Test(arguments: [10, ByteArrayBuilder.stackLimit + 10])
    func keepsOnlyTheBytesWritten(capacity: Int) {
        let bytes = ByteArrayBuilder.build(capacity: capacity) { buffer -> Int in
            buffer[0] = 1
            buffer[1] = 2
            return 2
        }
        #expect(bytes == [1, 2])
    }

    @Test(arguments: [10, ByteArrayBuilder.stackLimit + 10])
    func aFailedWriteBuildsNothing(capacity: Int) {
        let bytes = ByteArrayBuilder.build(capacity: capacity) { buffer -> Int? in
            buffer[0] = 1
            return nil
        }
        #expect(bytes == nil)
    }
}
