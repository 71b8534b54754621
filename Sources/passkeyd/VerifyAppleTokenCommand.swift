import AppleSignIn
import CryptoCore
import Foundation

/// `passkeyd verify-apple-token`: verifies one Sign in with Apple identity token offline with exactly
/// `IdentityTokenVerifier`'s rules and prints one JSON line with the verdict.
struct VerifyAppleTokenCommand {
    let arguments: [String]

    static let syntax = CommandLineSyntax(
        usage: "passkeyd verify-apple-token --jwks FILE --audience ID [--audience ID ...] [--at TIME] (--raw-nonce N | --nonce-optional) TOKEN",
        options: ["--jwks", "--at", "--raw-nonce"],
        repeatedOptions: ["--audience"],
        switches: ["--nonce-optional"],
        maximumPositionals: 1
    )

    func run() -> Int32 {
        let jwksPath: String
        let audiences: [String]
        let verificationTime: Date?
        let nonce: NonceExpectation
        let token: String
        do {
            let line = try Self.syntax.parse(arguments)
            jwksPath = try line.required("--jwks")
            audiences = line.values("--audience")
            guard !audiences.isEmpty else { throw Self.invalid(.missingOption, "at least one --audience is required") }
            verificationTime = try line.value("--at").map { text throws(CommandLineError) in
                guard let date = ISO8601Time.parse(text) else {
                    throw Self.invalid(.invalidArgument, "--at needs an ISO 8601 time such as 2021-03-01T12:00:00Z")
                }
                return date
            }
            switch (line.value("--raw-nonce"), line.isSet("--nonce-optional")) {
            case (let raw?, false): nonce = .raw(raw)
            case (nil, true): nonce = .optional
            case (_?, true): throw Self.invalid(.invalidArgument, "give exactly one of --raw-nonce and --nonce-optional")
            case (nil, false): throw Self.invalid(.missingOption, "give --raw-nonce N or --nonce-optional: the nonce policy has no default")
            }
            guard let given = line.positionals.first else { throw Self.invalid(.missingOption, "TOKEN is required") }
            token = given
        } catch {
            return fail("\(error)")
        }
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
            members = [("ok", false), ("error", error.code.rawValue), ("reason", error.reason)]
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

    private static func invalid(_ code: CommandLineError.Code, _ reason: String) -> CommandLineError {
        CommandLineError(code, reason, usage: syntax.usage)
    }

    private func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("passkeyd verify-apple-token: \(message)\n".utf8))
        return 2
    }
}
