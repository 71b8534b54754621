import CryptoCore
import Foundation
import Storage
import StorageSQLite
import TestSupport
import Testing

/// `passkeyd apple transfer-out` and `transfer-in` as an operator runs them: the built binary on a configuration and
/// SQLite database, calling the stand-in; exit status 1 while identities failed, a summary line, the store updated.
@Suite(.serialized) struct AppleTransferCommandTests {
    @Test func bothSidesRunOnTheConfiguredStore() throws {
        let standIn = try AppleStandIn()
        let folder = try TemporaryFolder()
        let data = folder.path + "/data"
        let keyPath = folder.path + "/AuthKey.p8"
        try Data(try AppleTestKeys.shared.p8.pem().utf8).write(to: URL(fileURLWithPath: keyPath))
        let apple = AppleFixture.configurationJSON(standIn.baseURL).replacingOccurrences(
            of: #""privateKey": "unused.p8""#,
            with: #""privateKey": "\#(keyPath)""#
        )
        let configuration = String(apple.dropLast()) + #", "dataDirectory": "\#(data)"}"#
        let configurationPath = folder.path + "/passkeyd.json"
        try Data(configuration.utf8).write(to: URL(fileURLWithPath: configurationPath))
        let subjects = ["001.one", "001.two"]
        do {
            let store = try SQLiteStore(path: data + "/passkeyd.sqlite")
            defer { store.close() }
            for (number, subject) in zip([UInt8(1), 2], subjects) {
                var identity = StoreSamples.appleIdentity(subject, owner: number)
                identity.transferSubject = nil
                try store.seedUser(StoreSamples.user(number), appleIdentity: identity)
            }
        }
        let executable = try ServeProcess.executable()
        standIn.failingSubjects = ["001.two"]
        let partial = try ChildProcess.run(executable, ["apple", "transfer-out", "--config", configurationPath, "--recipient-team", "RECIP12345"])
        #expect(partial.status == 1, "\(partial.errorOutput)")
        #expect(
            String(decoding: partial.output, as: UTF8.self)
                == "transfer-out: 2 Apple identities: 1 transferred, 0 done before or not concerned, 1 failed (run it again to retry them)\n"
        )
        standIn.failingSubjects = []
        let rest = try ChildProcess.run(
            executable,
            ["apple", "transfer-out", "--config=\(configurationPath)", "--recipient-team=RECIP12345", "--rate", "50"]
        )
        #expect(rest.status == 0, "\(rest.errorOutput)")
        #expect(String(decoding: rest.output, as: UTF8.self).hasPrefix("transfer-out: 2 Apple identities: 1 transferred, 1 done before"))
        let incoming = try ChildProcess.run(executable, ["apple", "transfer-in", "--config", configurationPath])
        #expect(incoming.status == 0, "\(incoming.errorOutput)")
        #expect(String(decoding: incoming.output, as: UTF8.self).hasPrefix("transfer-in: 2 Apple identities: 2 transferred"))
        let store = try SQLiteStore(path: data + "/passkeyd.sqlite")
        defer { store.close() }
        for (number, subject) in zip([UInt8(1), 2], subjects) {
            let identity = try #require(try store.appleIdentity(subject: AppleStandIn.recipientSubject(for: subject)))
            #expect(identity.userID == StoreSamples.userID(number) && identity.transferredAt != nil)
            #expect(identity.transferSubject == AppleStandIn.transferSubject(for: subject, team: "RECIP12345"))
        }
        #expect(!(partial.errorOutput + rest.errorOutput + incoming.errorOutput).contains("001.two"), "no sub in the log")
    }
}
