import CryptoCore
import Foundation
import TestSupport
import Testing

/// An idle webhook worker claims only every 16 s (issue 42), so every request that may write an event must wake it,
/// refused ones too: a clone warning is committed by a sign-in that is then refused with `possible_clone`.
@Suite(.serialized) struct WebhookWakeTests {
    @Test func aRefusedSignInsCloneWarningIsDeliveredAtOnceByAnIdleWorker() throws {
        let folder = try TemporaryFolder()
        let receiver = try WebhookReceiver(folder: folder.path)
        try receiver.start()
        let members = "\(DurabilityTests.liftedRateLimits), \"webhooks\": [\(receiver.configurationMember())]"
        let server = try ServeProcess(dataDirectory: folder.path + "/data", configurationPath: folder.path + "/passkeyd.json", extraMembers: members)
        let client = PasskeyClient(CurlTransport(port: server.port))
        let account = try client.register("alice")
        #expect(try client.signIn(account.credential, AssertionOptions(signCount: 5)).status == 200)
        let signedIn = receiver.wait { $0.count >= WebhookDeliveryTests.expectedTypes(signIns: 1).count }
        #expect(signedIn.count == WebhookDeliveryTests.expectedTypes(signIns: 1).count)
        // The options (a write that succeeds, so it wakes the worker) first; then claims that find nothing at about 1,
        // 2, 4 and 8 s: the worker now waits 8 s (then 16 s) between claims when the refused verification comes.
        let options = try client.requestOptions()
        Thread.sleep(forTimeInterval: 9)
        let refused = Date()
        let cloned = try client.authenticationVerify(try client.assertion(account.credential, answering: options, AssertionOptions(signCount: 4)))
        #expect(cloned.errorCode == "possible_clone")
        let warned = receiver.wait(seconds: 12) { $0.contains { $0.type == "passkey.clone_warning" } }
        #expect(warned.contains { $0.type == "passkey.clone_warning" })
        #expect(Date().timeIntervalSince(refused) < 3, "woken by the refused request, not at the idle worker's next claim")
    }
}
