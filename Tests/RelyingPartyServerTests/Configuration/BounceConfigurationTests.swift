import ConfigurationFile
import ConfigurationReading
import Email
import Foundation
import Testing

@testable import RelyingPartyServer

/// `email.bounces`: each provider's secret from a file or the environment (never inline, at least 16 bytes, Resend's a
/// `whsec_` secret), and every refusal naming its key.
struct BounceConfigurationTests {
    static func parse(_ bounces: String) throws(ConfigurationError) -> BounceSettings? {
        try EmailConfigurationTests.parse(EmailConfigurationTests.minimal + #", "bounces": \#(bounces)"#)?.bounces
    }

    @Test func everyProviderReadsItsSecret() throws {
        let folder = NSTemporaryDirectory() + "passkeyd-bounce-config-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "mailgun-signing-key-0123456789\n".write(toFile: folder + "/mailgun", atomically: true, encoding: .utf8)
        try "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw".write(toFile: folder + "/resend", atomically: true, encoding: .utf8)
        var bounces = try #require(
            try Self.parse(
                #"{"mailgun": {"signingKeyFile": "\#(folder)/mailgun"}, "postmark": {"username": "hooks", "passwordEnvironment": "PM"}, "resend": {"signingSecretFile": "\#(folder)/resend"}, "maximumAgeSeconds": 120}"#
            )
        )
        #expect(bounces.maximumAgeSeconds == 120 && bounces.mailgunSigningKey == nil, "nothing read before load")
        try bounces.load(environment: ["PM": "postmark password 0123"])
        #expect(bounces.mailgunSigningKey == Array("mailgun-signing-key-0123456789".utf8), "the line end dropped")
        #expect(bounces.postmarkUsername == "hooks" && bounces.postmarkPassword == "postmark password 0123")
        #expect(bounces.resendKey?.count == 24)
        #expect(try Self.parse("{}")?.maximumAgeSeconds == 600, "ten minutes by default")
        #expect(try EmailConfigurationTests.parse(EmailConfigurationTests.minimal)?.bounces == nil, "no block, no provider")
    }

    @Test(arguments: [
        (#"{"mailgun": {"signingKey": "inline-key-0123456789"}}"#, "email.bounces.mailgun.signingKey"),
        (#"{"mailgun": {}}"#, "email.bounces.mailgun.signingKeyFile"),
        (#"{"mailgun": {"signingKeyFile": "/k", "signingKeyEnvironment": "K"}}"#, "email.bounces.mailgun.signingKeyFile"),
        (#"{"postmark": {"username": "hooks", "password": "inline password 0123"}}"#, "email.bounces.postmark.password"),
        (#"{"postmark": {"passwordFile": "/p"}}"#, "email.bounces.postmark.username"),
        (#"{"postmark": {"username": "a:b", "passwordFile": "/p"}}"#, "email.bounces.postmark.username"),
        (#"{"resend": {"signingSecret": "whsec_x"}}"#, "email.bounces.resend.signingSecret"),
        (#"{"sendgrid": {}}"#, "email.bounces.sendgrid"),
        (#"{"maximumAgeSeconds": 5}"#, "email.bounces.maximumAgeSeconds"),
    ])
    func aBadBlockIsRefusedNamingItsKey(_ bounces: String, _ key: String) {
        #expect(throws: ConfigurationError.self) { try Self.parse(bounces) }
        do {
            _ = try Self.parse(bounces)
        } catch {
            #expect(error.key == key, "\(bounces): \(error.reason)")
        }
    }

    @Test(arguments: [
        (#"{"mailgun": {"signingKeyEnvironment": "MG"}}"#, ["MG": "short"], "email.bounces.mailgun.signingKeyEnvironment"),
        (#"{"mailgun": {"signingKeyEnvironment": "MG"}}"#, [:], "email.bounces.mailgun.signingKeyEnvironment"),
        (#"{"mailgun": {"signingKeyFile": "/nonexistent/key"}}"#, [:], "email.bounces.mailgun.signingKeyFile"),
        (#"{"resend": {"signingSecretEnvironment": "RS"}}"#, ["RS": "not-a-whsec-secret-0123456789"], "email.bounces.resend.signingSecret"),
        (#"{"resend": {"signingSecretEnvironment": "RS"}}"#, ["RS": "whsec_c2hvcnQgc2hvcnQgc2hvcnQ="], "email.bounces.resend.signingSecret"),
    ])
    func aSecretThatCannotBeUsedStopsTheLoad(_ bounces: String, _ environment: [String: String], _ key: String) throws {
        var settings = try #require(try Self.parse(bounces))
        do {
            try settings.load(environment: environment)
            Issue.record("\(bounces) loaded")
        } catch {
            #expect(error.key == key, "\(bounces): \(error.reason)")
        }
    }
}
