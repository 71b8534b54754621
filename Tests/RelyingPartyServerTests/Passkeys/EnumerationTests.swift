import Foundation
import TestSupport
import Testing
import WebAuthnCore

/// Authentication options must not reveal whether an account exists.
struct EnumerationTests {
    let client: PasskeyClient

    init() throws {
        client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make()))
    }

    private func options(_ username: String, from client: PasskeyClient? = nil) throws -> (keys: Set<String>, descriptors: [[String: Any]]) {
        let reply = try (client ?? self.client).authenticationOptions(username: username)
        #expect(reply.status == 200)
        let object = reply.object
        return (Set(object.keys), object["allowCredentials"] as? [[String: Any]] ?? [])
    }

    private static func ids(_ descriptors: [[String: Any]]) -> [String] { descriptors.compactMap { $0["id"] as? String } }

    @Test func unknownUsernameLooksLikeAKnownOne() throws {
        _ = try client.register("alice")
        let known = try options("alice")
        let unknown = try options("mallory")
        #expect(known.keys == unknown.keys)
        #expect(!known.descriptors.isEmpty)
        #expect(!unknown.descriptors.isEmpty)
        for descriptor in known.descriptors + unknown.descriptors {
            #expect(Set(descriptor.keys).isSubset(of: ["type", "id", "transports"]))
            #expect(descriptor["type"] as? String == "public-key")
        }
    }

    /// Issue 15: decoys always listed transports `["internal","hybrid"]` (browsers report `["hybrid","internal"]`) and
    /// one or two IDs of 32 bytes. Over 2,000 names they now take the shapes real accounts have.
    @Test func decoysAreShapedLikeRealAccounts() throws {
        var counts: [Int: Int] = [:]
        var lengths: [Int: Int] = [:]
        var transports: [[String]: Int] = [:]
        let unlimited = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "#
                + #""rateLimits": {"perAddressPerMinute": 100000, "perAddressBurst": 100000, "outstandingChallengesPerAddress": 100000}}"#
        )
        let client = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(configuration: unlimited)))
        for index in 0..<2000 {
            let descriptors = try options("user\(index)", from: client).descriptors
            counts[descriptors.count, default: 0] += 1
            for descriptor in descriptors {
                lengths[try PasskeyClient.bytes(descriptor["id"] as? String ?? "").count, default: 0] += 1
                let listed = descriptor["transports"] as? [String] ?? []
                #expect(listed == listed.sorted(), "browsers report transports in lexicographic order")
                transports[listed, default: 0] += 1
            }
        }
        print("decoys of 2,000 names: counts \(counts.sorted { $0.key < $1.key }), lengths \(lengths.sorted { $0.key < $1.key })")
        #expect(Set(counts.keys) == [1, 2, 3, 4])
        #expect(counts[1]! > counts[2]! && counts[2]! > counts[3]! && counts[3]! > counts[4]!, "most accounts have one passkey")
        #expect(Set(lengths.keys) == [16, 20, 32, 48, 64])
        #expect(transports[["hybrid", "internal"]]! > transports.values.reduce(0, +) / 2, "synced platform passkeys dominate")
        #expect(transports[["internal", "hybrid"]] == nil)
        #expect(transports[[]]! > 0, "some clients report no transports")
    }

    /// An assertion by `attacker`'s own passkey answering options for `username`, naming `credentialID`.
    private func junk(naming credentialID: String, by attacker: SoftwareCredential, username: String?) throws -> ServerReply {
        var assertion = try client.assertion(attacker, answering: try client.requestOptions(username: username))
        assertion.id = credentialID
        assertion.rawId = credentialID
        return try client.authenticationVerify(assertion)
    }

    /// Issue 15: a junk assertion naming the first listed credential got `credential_unknown` for a decoy and
    /// `verification_failed` for a real one. Now both run the same steps: the same status, code, step and message,
    /// whichever options it answers (the name's own, username-less, another account's).
    @Test func aJunkAssertionFailsAlikeForADecoyAndARealCredential() throws {
        let attacker = try client.register("attacker").credential
        _ = try client.register("alice")
        let real = try #require(Self.ids(try options("alice").descriptors).first)
        let decoy = try #require(Self.ids(try options("mallory").descriptors).first)
        for (realOptions, decoyOptions) in [("alice", "mallory"), (nil, nil), ("attacker", "attacker")] as [(String?, String?)] {
            let realReply = try junk(naming: real, by: attacker, username: realOptions)
            let decoyReply = try junk(naming: decoy, by: attacker, username: decoyOptions)
            #expect(realReply.status == 400)
            #expect(realReply.status == decoyReply.status)
            #expect(realReply.errorCode == "verification_failed")
            #expect(realReply.errorCode == decoyReply.errorCode, "options for \(realOptions ?? "nobody")")
            #expect(realReply.object["step"] as? String == decoyReply.object["step"] as? String, "options for \(realOptions ?? "nobody")")
            #expect(realReply.object["message"] as? String == decoyReply.object["message"] as? String)
            #expect(Set(realReply.object.keys) == Set(decoyReply.object.keys))
        }
    }

    @Test func decoysAreStablePerNameAndDifferBetweenNames() throws {
        let first = Self.ids(try options("mallory").descriptors)
        let second = Self.ids(try options("mallory").descriptors)
        #expect(!first.isEmpty)
        #expect(first == second)
        let other = Self.ids(try options("trudy").descriptors)
        #expect(!other.isEmpty)
        #expect(Set(first).isDisjoint(with: other))
    }

    @Test func decoysDependOnTheServerSecret() throws {
        let other = PasskeyClient(DirectTransport(handler: try TestServerFactory.make(enumerationSecret: Array(repeating: 0xA5, count: 32))))
        let here = Self.ids(try options("mallory").descriptors)
        let there = Self.ids(try other.authenticationOptions(username: "mallory").object["allowCredentials"] as? [[String: Any]] ?? [])
        #expect(!here.isEmpty)
        #expect(!there.isEmpty)
        #expect(Set(here).isDisjoint(with: there))
    }

    /// An attacker with an account of their own answers options for another name with their own passkey: the
    /// answer must be the same whether that name exists or not (it used to sign them in when it did not).
    @Test func ownPasskeyAnsweringOptionsForAnotherNameFailsAlikeForKnownAndUnknownNames() throws {
        let attacker = try client.register("attacker")
        _ = try client.register("alice")
        var replies: [ServerReply] = []
        for name in ["alice", "mallory"] {
            let options = try client.requestOptions(username: name)
            replies.append(try client.authenticationVerify(try client.assertion(attacker.credential, answering: options)))
        }
        for reply in replies {
            #expect(reply.status == 400)
            #expect(reply.object["token"] == nil)
            #expect(reply.headers["Set-Cookie"] == nil)
        }
        #expect(replies[0].errorCode == replies[1].errorCode)
        #expect(replies[0].object["step"] as? String == "credential.wrongUser")
        #expect(replies[1].object["step"] as? String == "credential.wrongUser")
        #expect(replies[0].object["message"] as? String == replies[1].object["message"] as? String)
    }
}
