import CryptoCore
import Foundation
import TestSupport
import Testing
import WebAuthnCore

#if canImport(Glibc)
import Glibc
#endif

/// `passkeyd serve` as a real process: clean stop on SIGTERM, state kept across a restart, configuration errors.
@Suite(.serialized) struct RestartTests {
    /// A SIGTERM sent the moment the server logs that it serves stops it. The signals used to be ignored until a
    /// Dispatch source for them was registered, after the listeners had started: a SIGTERM in that window was lost and
    /// the server ran on (the Swift client's tests hung in CI waiting for it to exit). The log is watched every
    /// millisecond, so the signal lands right after the last start-up line.
    @Test func aStopRightAfterStartUpIsNotLost() throws {
        let folder = try TemporaryFolder()
        let configuration = folder.path + "/passkeyd.json"
        let logPath = folder.path + "/serve.log"
        for round in 1...10 {
            let port = try LoopbackPort.free()
            try Data(
                """
                {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]},
                 "listen": {"https": "127.0.0.1:\(port)"}, "dataDirectory": "\(folder.path)/data", "www": null, "threads": 2}
                """.utf8
            ).write(to: URL(fileURLWithPath: configuration))
            try? FileManager.default.removeItem(atPath: logPath)
            let server = try SpawnedProcess(try ServeProcess.executable(), ["serve", "--config", configuration], standardError: .file(logPath))
            defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
            let started = Date()
            while server.isRunning, Date().timeIntervalSince(started) < 15,
                !((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").contains("serving https://")
            {
                usleep(1_000)
            }
            kill(server.processIdentifier, SIGTERM)
            let sent = Date()
            while server.isRunning, Date().timeIntervalSince(sent) < 10 { usleep(20_000) }
            guard !server.isRunning else {
                Issue.record("round \(round): SIGTERM was lost")
                return
            }
            #expect(server.terminationStatus == 0, "round \(round)")
        }
    }

    @Test func accountsSurviveARestartAndTheCertificateIsKept() throws {
        let folder = try TemporaryFolder()
        let data = folder.path + "/data"
        let configuration = folder.path + "/passkeyd.json"

        let first = try ServeProcess(dataDirectory: data, configurationPath: configuration)
        let firstClient = PasskeyClient(CurlTransport(port: first.port))
        let account = try firstClient.register("alice")
        let signedIn = try firstClient.signIn(account.credential, username: "alice", .init(signCount: 3))
        #expect(signedIn.status == 200)
        let certificate = try Data(contentsOf: URL(fileURLWithPath: data + "/tls-certificate.pem"))
        let privateKey = try Data(contentsOf: URL(fileURLWithPath: data + "/tls-private-key.pem"))
        let secret = try Data(contentsOf: URL(fileURLWithPath: data + "/server-secret"))
        let decoys = try firstClient.authenticationOptions(username: "mallory").object["allowCredentials"] as? [[String: Any]]
        #expect(first.terminate() == 0)
        let firstLog = first.log
        #expect(firstLog.contains("stopping"))
        #expect(!firstLog.contains(account.token))

        let second = try ServeProcess(dataDirectory: data, configurationPath: configuration)
        let secondClient = PasskeyClient(CurlTransport(port: second.port))
        // The session from before the restart is still valid; so is the passkey, and its counter was kept.
        let me = try secondClient.send("GET", "/me", headers: PasskeyClient.bearer(account.token))
        #expect(me.status == 200)
        let passkeys = try #require(me.object["passkeys"] as? [[String: Any]])
        #expect(passkeys.compactMap { $0["id"] as? String } == [Base64URL.encode(account.credential.id)])
        #expect(try secondClient.signIn(account.credential, .init(signCount: 3)).errorCode == "possible_clone")
        let again = try secondClient.signIn(account.credential, username: "alice", .init(signCount: 4))
        #expect(again.status == 200)
        let token = try #require(again.object["token"] as? String)
        #expect(try secondClient.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 200)
        #expect(try secondClient.registrationOptions(username: "alice").errorCode == "username_taken")
        // Same certificate, key and secret bytes: the decoys did not change either.
        #expect(try Data(contentsOf: URL(fileURLWithPath: data + "/tls-certificate.pem")) == certificate)
        #expect(try Data(contentsOf: URL(fileURLWithPath: data + "/tls-private-key.pem")) == privateKey)
        #expect(try Data(contentsOf: URL(fileURLWithPath: data + "/server-secret")) == secret)
        let decoysAfter = try secondClient.authenticationOptions(username: "mallory").object["allowCredentials"] as? [[String: Any]]
        #expect(decoys?.compactMap { $0["id"] as? String } == decoysAfter?.compactMap { $0["id"] as? String })
        #expect(decoys?.isEmpty == false)
        #expect(second.terminate() == 0)
        #expect(!second.log.contains(token))
    }

    @Test(arguments: [
        (#"{"sessions": {"lifetimeSeconds": 5}}"#, "sessions.lifetimeSeconds"),
        (#"{"listen": {"https": "127.0.0.1"}}"#, "listen.https"),
        (#"{"colour": "blue"}"#, "colour"),
        (#"{"associatedDomains": {"webcredentials": {"apps": ["nope"]}}}"#, "associatedDomains.webcredentials.apps"),
    ])
    func invalidConfigurationStopsWithTheKeyNamed(json: String, key: String) throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/bad.json"
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        let result = try ChildProcess.run(try ServeProcess.executable(), ["serve", "--config", path])
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("invalid configuration: \(key):"), "\(result.errorOutput)")
    }

    @Test func unreadableConfigurationFileStops() throws {
        let result = try ChildProcess.run(try ServeProcess.executable(), ["serve", "--config", "/nonexistent/passkeyd.json"])
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("/nonexistent/passkeyd.json"))
    }
}
