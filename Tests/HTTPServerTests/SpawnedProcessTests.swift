import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The loopback and restart tests start their long-running children with `SpawnedProcess`, not Foundation's
/// `Process`, whose `run()` crashed a parallel test run when the test process held hundreds of descriptors.
@Suite struct SpawnedProcessTests {
    /// With 1,500 descriptors open in this process, children still start, report their exit status and inherit
    /// none of them (standard input, output and error only, plus the descriptor `ls` opens to list its own).
    @Test func childrenStartAndInheritNothingWhileManyDescriptorsAreOpen() throws {
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<750 {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { break }
            held += ends
        }
        try #require(held.count >= 1_000, "could open only \(held.count) descriptors")
        for _ in 0..<20 {
            let child = try SpawnedProcess("/bin/ls", ["/proc/self/fd"], standardOutput: .pipe)
            let listed = String(decoding: child.standardOutput?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            #expect(child.terminationStatus == 0)
            #expect(listed.split(separator: "\n").count <= 4, "the child inherited descriptors: \(listed.prefix(200))")
        }
        let failing = try SpawnedProcess("/bin/sh", ["-c", "exit 3"])
        #expect(failing.terminationStatus == 3)
        #expect(!failing.isRunning)
    }

    /// A child ended by a signal reports 128 plus the signal, as a shell would.
    @Test func aKilledChildReportsTheSignal() throws {
        let sleeper = try SpawnedProcess("/bin/sleep", ["30"])
        #expect(sleeper.isRunning)
        kill(sleeper.processIdentifier, SIGKILL)
        #expect(sleeper.terminationStatus == 128 + SIGKILL)
    }
}
