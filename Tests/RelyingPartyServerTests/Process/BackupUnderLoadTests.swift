import Foundation
import Storage
import StorageSQLite
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `passkeyd backup` while registrations and sign-ins run, the data folder destroyed, `passkeyd restore`, and every
/// account the backup holds signed in again; no event ID of the backup's timeline is handed out again for another event.
@Suite(.serialized) struct BackupUnderLoadTests {
    /// One ceremony the load saw succeed, and when.
    struct Done: Sendable {
        let username: String
        let credential: SoftwareCredential
        let registration: Bool
        let completedAt: Date
    }

    /// Short challenges (a restore holds 10 s at most) and rate limits out of the way of the load.
    static let members =
        BackupRestoreTests.shortChallenges
        + #", "rateLimits": {"perAddressPerMinute": 1000000, "perAddressBurst": 1000000, "perAccountPerMinute": 1000000, "perAccountBurst": 1000000, "outstandingChallengesPerAddress": 1000000}"#

    @Test func aBackupTakenUnderLoadRestoresEveryAccountItHolds() throws {
        let folder = try TemporaryFolder()
        let (data, configuration, backup) = (folder.path + "/data", folder.path + "/passkeyd.json", folder.path + "/backup")
        let server = try ServeProcess(dataDirectory: data, configurationPath: configuration, extraMembers: Self.members)
        let seedClient = PasskeyClient(CurlTransport(port: server.port))
        let seeds = try (0..<8).map { try seedClient.register("seed-\($0)") }
        let port = server.port

        let stop = Atomic<Bool>(false)
        let done = Mutex([Done]())
        let failures = Mutex([String]())
        let group = DispatchGroup()
        // Two threads register new accounts; one signs the seeds in, round after round (each with a higher counter).
        for thread in 0..<2 {
            group.enter()
            Thread {
                defer { group.leave() }
                let client = PasskeyClient(CurlTransport(port: port))
                for index in 0..<400 where !stop.load(ordering: .acquiring) {
                    let username = "load-\(thread)-\(index)"
                    do {
                        let account = try client.register(username)
                        done.withLock { $0.append(Done(username: username, credential: account.credential, registration: true, completedAt: Date())) }
                    } catch {
                        failures.withLock { $0.append("\(username): \(error)") }
                    }
                }
            }.start()
        }
        group.enter()
        Thread {
            defer { group.leave() }
            let client = PasskeyClient(CurlTransport(port: port))
            for round in 1...400 where !stop.load(ordering: .acquiring) {
                for seed in seeds {
                    guard let reply = try? client.signIn(seed.credential, .init(signCount: UInt32(round))), reply.status == 200 else {
                        failures.withLock { $0.append("\(seed.username) round \(round)") }
                        continue
                    }
                    done.withLock { $0.append(Done(username: seed.username, credential: seed.credential, registration: false, completedAt: Date())) }
                }
            }
        }.start()
        usleep(1_500_000)
        let backupStarted = Date()
        let made = try BackupRestoreTests.passkeyd(["backup", backup, "--config", configuration])
        let backupEnded = Date()
        usleep(1_500_000)
        stop.store(true, ordering: .releasing)
        group.wait()
        #expect(made.status == 0, "\(made.errorOutput)")
        let failed = failures.withLock { $0 }
        #expect(failed.count == 0, "the first failures: \(failed.prefix(5))")
        let ceremonies = done.withLock { $0 }
        let before = ceremonies.filter { $0.completedAt < backupStarted }
        let after = ceremonies.filter { $0.completedAt > backupEnded }
        #expect(!before.isEmpty && !after.isEmpty, "the load ran before and after the backup")
        print(
            "backup under load: \(ceremonies.count) ceremonies, \(ceremonies.count - before.count - after.count) during the backup's \(Int(backupEnded.timeIntervalSince(backupStarted) * 1000)) ms"
        )
        #expect(server.terminate() == 0)
        let eventsBefore = try Self.events(data)

        try FileManager.default.removeItem(atPath: data)
        let restored = try BackupRestoreTests.passkeyd(["restore", backup, "--config", configuration])
        #expect(restored.status == 0, "\(restored.errorOutput)")

        let again = try ServeProcess(dataDirectory: data, configurationPath: configuration, extraMembers: Self.members)
        let client = PasskeyClient(CurlTransport(port: again.port))
        // Every account the backup holds signs in: the seeds, and each registration acknowledged before it began.
        for (index, account) in (seeds.map { ($0.username, $0.credential) } + before.filter(\.registration).map { ($0.username, $0.credential) })
            .enumerated()
        {
            let reply = try client.signIn(account.1, .init(signCount: UInt32(10_000 + index)))
            #expect(reply.status == 200, "\(account.0): \(reply.status) \(reply.text)")
        }
        // Registrations acknowledged after the backup ended are not in it.
        for account in after.filter(\.registration).prefix(5) {
            #expect(try client.signIn(account.credential, .init(signCount: 10_000)).status != 200, "\(account.username)")
        }
        #expect(again.terminate() == 0)

        // The restored timeline appends new events; none takes an ID the lost timeline gave to another event.
        let eventsAfter = try Self.events(data)
        let lost = Dictionary(uniqueKeysWithValues: eventsBefore.map { ($0.publicID, $0) })
        let kept = eventsAfter.filter { lost[$0.publicID] != nil }
        #expect(
            kept.allSatisfy { event in
                let earlier = lost[event.publicID]
                return earlier?.type == event.type && earlier?.data == event.data && earlier?.userID == event.userID
            }
        )
        #expect(eventsAfter.count > kept.count, "the restored node appended events of its own")
        #expect(eventsAfter.contains { $0.type == "session.revoked" && String(decoding: $0.data, as: UTF8.self).contains(#""reason":"restore""#) })
    }

    /// Every event of the database in `folder`, read with the server stopped.
    static func events(_ folder: String) throws -> [EventRecord] {
        let store = try SQLiteStore(path: folder + "/passkeyd.sqlite")
        defer { store.close() }
        return try store.exportRecords().events
    }
}
