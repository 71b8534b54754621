import Foundation

@testable import PasskeydClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The iPhone of the tests: `passkeyd-test-device`, the main package's software authenticator and Apple stand-in,
/// driven one JSON line at a time. It answers with the raw values `ASAuthorizationPlatformPublicKeyCredential…`
/// types hold, which the tests pass through the client's mapping as an app does.
final class TestDevice {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()
    private(set) var appleBaseURL = ""
    private(set) var bundleID = ""

    init(executable: String, p8Path: String) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--p8", p8Path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let greeting = try readLine()
        guard let apple = greeting["appleBaseURL"] as? String, let bundle = greeting["bundleID"] as? String else {
            throw LoopbackServer.Failure("the device did not greet: \(greeting)")
        }
        appleBaseURL = apple
        bundleID = bundle
    }

    func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// What the platform hands back for `request`: the passkey sheet's registration.
    func create(_ request: PlatformRegistrationRequest) throws -> PlatformRegistration {
        let answer = try send([
            "command": "create", "relyingPartyID": request.relyingPartyIdentifier,
            "challenge": Base64URL.encode(request.challenge), "userID": Base64URL.encode(request.userID),
        ])
        return PlatformRegistration(
            credentialID: try Self.data(answer, "credentialID"),
            rawClientDataJSON: try Self.data(answer, "rawClientDataJSON"),
            rawAttestationObject: try Self.data(answer, "rawAttestationObject")
        )
    }

    /// The passkey sheet's assertion for `request`.
    func assert(_ request: PlatformAssertionRequest) throws -> PlatformAssertion {
        let answer = try send([
            "command": "assert", "relyingPartyID": request.relyingPartyIdentifier,
            "challenge": Base64URL.encode(request.challenge), "allowedCredentials": request.allowedCredentials.map(Base64URL.encode),
        ])
        return PlatformAssertion(
            credentialID: try Self.data(answer, "credentialID"),
            rawClientDataJSON: try Self.data(answer, "rawClientDataJSON"),
            rawAuthenticatorData: try Self.data(answer, "rawAuthenticatorData"),
            signature: try Self.data(answer, "signature"),
            userID: try Self.data(answer, "userID")
        )
    }

    /// Apple's answer to a request whose `nonce` was `hashedNonce`: the identity token and authorization code bytes.
    func appleSignIn(hashedNonce: String, subject: String) throws -> (identityToken: Data, authorizationCode: Data) {
        let answer = try send(["command": "appleToken", "nonce": hashedNonce, "subject": subject])
        guard let token = answer["identityToken"] as? String, let code = answer["authorizationCode"] as? String else {
            throw LoopbackServer.Failure("no token: \(answer)")
        }
        return (Data(token.utf8), Data(code.utf8))
    }

    private func send(_ command: [String: Any]) throws -> [String: Any] {
        var line = try JSONSerialization.data(withJSONObject: command)
        line.append(0x0A)
        try input.fileHandleForWriting.write(contentsOf: line)
        let answer = try readLine()
        if let error = answer["error"] { throw LoopbackServer.Failure("the device refused \(command["command"] ?? ""): \(error)") }
        return answer
    }

    private func readLine() throws -> [String: Any] {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer = Data(buffer[buffer.index(after: newline)...])
                guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                    throw LoopbackServer.Failure("the device answered something that is not a JSON object")
                }
                return object
            }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw LoopbackServer.Failure("the device exited") }
            buffer.append(chunk)
        }
    }

    private static func data(_ answer: [String: Any], _ key: String) throws -> Data {
        guard let text = answer[key] as? String, let data = Base64URL.decode(text) else { throw LoopbackServer.Failure("no \(key) in \(answer)") }
        return data
    }
}
