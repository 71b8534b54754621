import Foundation
import TestSupport
import Testing

/// Issue 15: memory grew without bound. Sign-in usernames had no length limit and every unique one stayed in the
/// per-account limiter (2,000 requests with 60 KB names took the review's server from 41 to 156 MB, never released),
/// and the limiters' tables grew with every unique address. `passkeyd serve` in a child process, behind a "proxy"
/// (`trustForwardedFor`, so that every request can come from a new address), its RSS read from `/proc`.
@Suite(.serialized) struct MemoryFloodTests {
    /// The server's resident set, in MiB (`VmRSS` of `/proc/<pid>/status`).
    static func residentMegabytes(_ process: SpawnedProcess) -> Double {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    /// Sends authentication-options requests on one kept-alive connection (one curl, a request per config entry), the
    /// n-th from `address(n)` naming `name(n)`; returns how many got each status.
    static func flood(port: Int, count: Int, folder: String, address: (Int) -> String, name: (Int) -> String) throws -> [Int: Int] {
        var entries: [String] = []
        for index in 0..<count {
            entries.append(
                """
                url = "https://127.0.0.1:\(port)/webauthn/authentication/options"
                insecure
                header = "Content-Type: application/json"
                header = "X-Forwarded-For: \(address(index))"
                data = "{\\"username\\":\\"\(name(index))\\"}"
                output = "/dev/null"
                write-out = "%{http_code}\\n"

                """
            )
        }
        // Options after `next` apply to the next URL only, so each entry repeats them; the connection is kept.
        let config = entries.joined(separator: "next\n")
        let path = folder + "/flood.curl"
        try Data(config.utf8).write(to: URL(fileURLWithPath: path))
        let result = try ChildProcess.run("/usr/bin/curl", ["-s", "-K", path])
        try FileManager.default.removeItem(atPath: path)
        var statuses: [Int: Int] = [:]
        for line in String(decoding: result.output, as: UTF8.self).split(separator: "\n") { statuses[Int(line) ?? 0, default: 0] += 1 }
        return statuses
    }

    /// The n-th unique IPv4 address of 10.0.0.0/8 from `offset` on.
    static func address(_ index: Int, offset: Int = 0) -> String {
        let value = index + offset + 1
        return "10.\(value >> 16 & 0xff).\(value >> 8 & 0xff).\(value & 0xff)"
    }

    @Test func residentMemoryStaysFlatUnderFloodsOfUniqueNamesAndAddresses() throws {
        let folder = try TemporaryFolder()
        let server = try ServeProcess(
            dataDirectory: folder.path + "/data",
            configurationPath: folder.path + "/passkeyd.json",
            extraMembers: #""rateLimits": {"trustForwardedFor": true, "maximumKeys": 1000}"#
        )
        let padding = String(repeating: "n", count: 60_000)
        // Warm-up: tables at their capacity, SQLite's cache and the allocator's arenas in use.
        #expect(
            try Self.flood(port: server.port, count: 3000, folder: folder.path, address: { Self.address($0) }, name: { "warm\($0)" }) == [200: 3000]
        )
        let before = Self.residentMegabytes(server.process)
        let longNames = try Self.flood(
            port: server.port,
            count: 500,
            folder: folder.path,
            address: { Self.address($0, offset: 100_000) },
            name: { "\($0)-" + padding }
        )
        let afterLongNames = Self.residentMegabytes(server.process)
        let first = try Self.flood(
            port: server.port,
            count: 3000,
            folder: folder.path,
            address: { Self.address($0, offset: 200_000) },
            name: { "a\($0)" }
        )
        let middle = Self.residentMegabytes(server.process)
        let second = try Self.flood(
            port: server.port,
            count: 3000,
            folder: folder.path,
            address: { Self.address($0, offset: 300_000) },
            name: { "b\($0)" }
        )
        let after = Self.residentMegabytes(server.process)
        print(
            String(
                format:
                    "memory flood: RSS %.1f MiB after warm-up, %.1f after 500 names of 60 KB, %.1f and %.1f after 3,000 + 3,000 new addresses and names",
                before,
                afterLongNames,
                middle,
                after
            )
        )
        #expect(longNames == [400: 500], "a name longer than any account's is refused before it becomes a key")
        #expect(first == [200: 3000])
        #expect(second == [200: 3000])
        #expect(afterLongNames - before < 8, "500 names of 60 KB kept nothing (the review measured about 29 MB for these)")
        #expect(after - middle < 4, "the tables stay at their capacity")
        #expect(server.terminate() == 0)
    }
}
