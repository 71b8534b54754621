import CryptoCore
import Foundation
import TestSupport
import Testing

/// The webhook receiver of docs/get-started/webhooks.md, run as written (Flask and `standardwebhooks` from PyPI, in
/// `.venv-webhooks`): it accepts passkeyd's signed deliveries, handles `user.deleted` with the deleted account's ID,
/// and refuses a delivery whose signature is not the endpoint's.
@Suite(.serialized) struct WebhookReceiverExampleTests {
    static let page = "get-started/webhooks.md"

    @Test func theDocumentedReceiverTakesSignedDeliveriesAndRefusesForgedOnes() throws {
        let folder = try TemporaryFolder()
        let receiver = try WebhookReceiver(folder: folder.path)
        receiver.documented = DocumentationPage.repository.path + "/docs/" + Self.page
        try receiver.start()
        let fixture = try AppleFixture(clock: ManualClock(Date()), webhooks: "[\(receiver.configurationMember(path: "/passkeyd-events"))]")
        try fixture.server.startWebhooks()
        defer { fixture.server.stopWebhooks() }

        let alice = try fixture.client.register("alice")
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(alice.token)).status < 300)
        let accepted = receiver.wait { $0.contains { $0.type == "user.deleted" } }
        #expect(accepted.map(\.type).contains("user.created"), "docs/\(Self.page): \(accepted.map(\.type))")
        let userID = Base64URL.encode(alice.userID)
        #expect(accepted.first { $0.type == "user.deleted" }?.data["userId"] as? String == userID)
        let log = try String(contentsOfFile: receiver.logPath, encoding: .utf8)
        #expect(log.contains(#""deleted": ["\#(userID)"]"#), "the example's delete_my_rows_for got the deleted account's ID")

        let forged = try ChildProcess.run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "http://127.0.0.1:\(receiver.port)/passkeyd-events",
                "-H", "Content-Type: application/json", "-H", "webhook-id: evt_forged",
                "-H", "webhook-timestamp: \(Int(Date().timeIntervalSince1970))",
                "-H", "webhook-signature: v1,\(Data(repeating: 7, count: 32).base64EncodedString())",
                "--data", #"{"type":"user.deleted","timestamp":"2026-12-01T10:41:01.337Z","data":{"userId":"x"}}"#,
            ]
        )
        #expect(String(decoding: forged.output, as: UTF8.self) == "401", "docs/\(Self.page): a forged delivery is refused")
    }
}
