import Foundation
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 15: secrets were readable while being created. In an existing 0755 data folder another user read
/// `server-secret` during its creation in 5 of 5 runs (it was written with the default mode, then narrowed), and the
/// SQLite database and its WAL and SHM files were 0644. `passkeyd serve` in a child process, watched from its start.
@Suite(.serialized) struct FileModeTests {
    static let watched = [
        "server-secret", "tls-private-key.pem", "passkeyd.sqlite", "passkeyd.sqlite-wal", "passkeyd.sqlite-shm",
    ]

    /// Polls the files' modes as fast as it can while `body` runs; returns the widest mode each file was seen with.
    static func watchModes(in folder: String, during body: () throws -> Void) rethrows -> [String: mode_t] {
        let seen = Mutex<[String: mode_t]>([:])
        let watching = Atomic(true)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while watching.load(ordering: .relaxed) {
                for name in watched {
                    var status = stat()
                    guard lstat(folder + "/" + name, &status) == 0 else { continue }
                    seen.withLock { $0[name] = ($0[name] ?? 0) | (status.st_mode & 0o777) }
                }
            }
            done.signal()
        }
        defer {
            watching.store(false, ordering: .relaxed)
            done.wait()
        }
        try body()
        return seen.withLock { $0 }
    }

    /// As root (CI), a reader running as `nobody` tries to read the secret in a loop while the server starts; returns
    /// how many times it succeeded, or nil when not root.
    static func readsByAnotherUser(of path: String, during body: () throws -> Void) throws -> Int? {
        guard getuid() == 0 else {
            try body()
            return nil
        }
        let reader = try SpawnedProcess(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/bash", "-c",
                "n=0; for i in $(seq 1 200000); do if head -c 32 \"$0\" >/dev/null 2>&1; then n=$((n+1)); fi; [ -e \"$0.stop\" ] && break; done; echo $n",
                path,
            ],
            standardOutput: .pipe
        )
        try body()
        _ = FileManager.default.createFile(atPath: path + ".stop", contents: nil)
        let output = reader.standardOutput?.readDataToEndOfFile() ?? Data()
        reader.waitUntilExit()
        try? FileManager.default.removeItem(atPath: path + ".stop")
        return Int(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func mode(_ path: String) -> mode_t {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & 0o777 : 0
    }

    @Test func secretsAndTheDatabaseArePrivateFromTheirFirstByteInAnOpenFolder() throws {
        let folder = try TemporaryFolder()
        let data = folder.path + "/data"
        // The review's setup: an existing data folder that others may enter and list.
        #expect(mkdir(data, 0o755) == 0)
        chmod(data, 0o755)
        chmod(folder.path, 0o755)
        var server: ServeProcess?
        var reads: Int?
        let seen = try Self.watchModes(in: data) {
            reads = try Self.readsByAnotherUser(of: data + "/server-secret") {
                server = try ServeProcess(dataDirectory: data, configurationPath: folder.path + "/passkeyd.json")
            }
        }
        let running = try #require(server)
        // A registration writes the database, so that the WAL and SHM files exist.
        _ = try PasskeyClient(CurlTransport(port: running.port)).register("alice")
        for name in Self.watched {
            #expect(Self.mode(data + "/" + name) == 0o600, "\(name) is 0\(String(Self.mode(data + "/" + name), radix: 8))")
            #expect((seen[name] ?? 0) & 0o077 == 0, "\(name) was seen with mode 0\(String(seen[name] ?? 0, radix: 8)) while being created")
        }
        #expect(seen["server-secret"] != nil, "the watcher saw the secret appear")
        if let reads { #expect(reads == 0, "another user read server-secret \(reads) times during its creation") }
        #expect(running.log.contains("\(data) is open to group or others (mode 0755); chmod 0700 it"))
        #expect(running.terminate() == 0)
    }

    @Test func aFolderPasskeydCreatesIs0700AndLooseFilesAreReportedAtStart() throws {
        let folder = try TemporaryFolder()
        let data = folder.path + "/data"
        let first = try ServeProcess(dataDirectory: data, configurationPath: folder.path + "/passkeyd.json")
        #expect(Self.mode(data) == 0o700)
        #expect(!first.log.contains(#""level":"warning""#), "\(first.log)")
        #expect(first.terminate() == 0)
        chmod(data + "/server-secret", 0o644)
        chmod(data + "/passkeyd.sqlite", 0o640)
        let second = try ServeProcess(dataDirectory: data, configurationPath: folder.path + "/passkeyd.json")
        #expect(second.log.contains("\(data)/server-secret is open to group or others (mode 0644); chmod 0600 it"))
        #expect(second.log.contains("\(data)/passkeyd.sqlite is open to group or others (mode 0640); chmod 0600 it"))
        #expect(second.terminate() == 0)
    }
}
