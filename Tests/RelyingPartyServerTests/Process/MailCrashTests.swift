import CryptoCore
import Foundation
import Storage
import StorageSQLite
import TestSupport
import Testing

/// Issue 39: `passkeyd serve` killed with SIGKILL while it is sending a message, and restarted on the same data
/// folder: the message is sent by the restarted node once the dead one's lease ends (at least once).
@Suite(.serialized) struct MailCrashTests {
    @Test func aMessageInFlightWhenTheNodeIsKilledIsSentAfterTheRestart() throws {
        let folder = try TemporaryFolder()
        let data = folder.path + "/data"
        let configuration = folder.path + "/passkeyd.json"
        let relay = try SMTPStandIn(security: .starttls)
        try relay.start()
        try SMTPStandIn.password.write(toFile: folder.path + "/smtp-password", atomically: true, encoding: .utf8)
        let email = """
            "email": {"host": "127.0.0.1", "port": \(relay.port), "username": "\(SMTPStandIn.user)", "passwordFile": "\(folder.path)/smtp-password",
             "caFile": "\(relay.caFile)", "from": "no-reply@example.com", "baseURL": "https://example.com", "timeoutSeconds": 3,
             "connectTimeoutSeconds": 2, "firstRetrySeconds": 1, "maximumRetrySeconds": 1}
            """
        // The relay holds the first attempt's message for 2.5 s and then refuses it: only a later attempt can arrive.
        try relay.misbehave(data: 451, delay: 2.5)
        let first = try ServeProcess(dataDirectory: data, configurationPath: configuration, extraMembers: email)
        let client = PasskeyClient(CurlTransport(port: first.port))
        let heidi = try client.register("heidi")
        let store = try SQLiteStore(path: data + "/passkeyd.sqlite")
        _ = try store.transaction { transaction throws(StorageError) in
            guard var user = try transaction.user(id: heidi.userID) else { return false }
            user.email = "heidi@example.org"
            user.emailVerified = true
            return try transaction.updateUser(user)
        }
        #expect(try client.send("DELETE", "/me", headers: PasskeyClient.bearer(heidi.token)).status < 300)
        // The notice is claimed and its data is with the relay: kill the node mid-send.
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, try store.mailOutbox(status: .pending, after: 0, limit: 1).first?.leaseOwner == nil { usleep(50_000) }
        usleep(800_000)
        first.stopWithSIGKILL()
        let claimed = try store.mailOutbox(status: .pending, after: 0, limit: 1)
        #expect(claimed.count == 1 && claimed.first?.leaseOwner != nil && claimed.first?.attempts == 0, "held by the killed node, no outcome")
        try relay.misbehave()

        let second = try ServeProcess(dataDirectory: data, configurationPath: configuration, extraMembers: email)
        let received = relay.wait(seconds: 30) { !$0.isEmpty }
        #expect(received.count == 1, "sent by the restarted node once the lease ended")
        #expect(received.first?.recipients == ["heidi@example.org"] && received.first?.text?.contains("Your account was deleted.") == true)
        let sentDeadline = Date().addingTimeInterval(5)
        while Date() < sentDeadline, try store.mailOutboxCounts() != [.sent: 1] { usleep(50_000) }
        let sent = try store.mailOutbox(status: nil, after: 0, limit: 5)
        #expect(
            sent.map(\.status) == [.sent] && sent.first?.attempts == 1 && received.first?.messageID == "<\(sent.first?.messageID ?? "")@example.com>"
        )
        store.close()
        #expect(second.terminate() == 0)
    }
}
