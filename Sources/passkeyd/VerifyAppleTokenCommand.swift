import AppleSignIn
import CryptoCore
import Foundation

/// `passkeyd verify-apple-token`: verifies one Sign in with Apple identity token offline with exactly
/// `IdentityTokenVerifier`'s rules and prints one JSON line with the verdict.
struct VerifyAppleTokenCommand {
    let arguments: [String]

    func run() -> Int32 {
        var jwksPath: String?
        var audiences: [String] = []
        var verificationTime: Date?
        var nonce: NonceExpectation?
        var token: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            let needsValue = ["--jwks", "--audience", "--at", "--raw-nonce"].contains(argument)
            if needsValue, index + 1 >= arguments.count { return fail("\(argument) needs a value") }
            switch argument {
            case "--jwks":
                jwksPath = arguments[index + 1]
            case "--audience":
                audiences.append(arguments[index + 1])
            case "--at":
                guard let date = ISO8601Time.parse(arguments[index + 1]) else {
                    return fail("--at needs an ISO 8601 time such as 2021-03-01T12:00:00Z")
                }
                verificationTime = date
            case "--raw-nonce":
                guard nonce == nil else { return fail("give exactly one of --raw-nonce and --nonce-optional") }
                nonce = .raw(arguments[index + 1])
            case "--nonce-optional":
                guard nonce == nil else { return fail("give exactly one of --raw-nonce and --nonce-optional") }
                nonce = .optional
            case let option where option.hasPrefix("--"):
                return fail("unknown option \(option)")
            default:
                guard token == nil else { return fail("only one TOKEN may be given") }
                token = argument
            }
            index += needsValue ? 2 : 1
        }
        guard let jwksPath else { return fail("--jwks FILE is required") }
        guard !audiences.isEmpty else { return fail("at least one --audience is required") }
        guard let nonce else { return fail("give --raw-nonce N or --nonce-optional: the nonce policy has no default") }
        guard let token else { return fail("TOKEN is required") }
        guard let jwksData = FileManager.default.contents(atPath: jwksPath) else { return fail("cannot read \(jwksPath)") }
        let keys: JSONWebKeySet
        do {
            keys = try JSONWebKeySet(json: Array(jwksData))
        } catch {
            return fail("\(jwksPath): \(error.reason)")
        }
        let verifier = IdentityTokenVerifier(audiences: audiences, time: verificationTime.map(FixedTime.init) ?? FixedTime(Date()))
        // The verdict line: ok first, then either the error or the user's claims; absent values are omitted.
        var members: [(name: String, value: any Encodable)]
        do {
            let claims = try verifier.verify(token, keys: keys, nonce: nonce)
            members = [("ok", true), ("sub", claims.subject)]
            if let email = claims.email { members.append(("email", email)) }
            if let emailVerified = claims.emailVerified { members.append(("emailVerified", emailVerified)) }
            if let isPrivateEmail = claims.isPrivateEmail { members.append(("isPrivateEmail", isPrivateEmail)) }
            if let realUserStatus = claims.realUserStatus { members.append(("realUserStatus", realUserStatus.rawValue)) }
        } catch {
            members = [("ok", false), ("error", error.code), ("reason", error.reason)]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        var fields: [String] = []
        for member in members {
            guard let value = try? encoder.encode(member.value) else { return fail("could not encode the verdict") }
            fields.append("\"\(member.name)\":" + String(decoding: value, as: UTF8.self))
        }
        FileHandle.standardOutput.write(Data(("{" + fields.joined(separator: ",") + "}\n").utf8))
        return 0
    }

    private func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd verify-apple-token: \(message)\n".utf8))
        return 2
    }
}
