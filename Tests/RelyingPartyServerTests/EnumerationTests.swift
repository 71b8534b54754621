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

    private func options(_ username: String) throws -> (keys: Set<String>, descriptors: [[String: Any]]) {
        let reply = try client.authenticationOptions(username: username)
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
            #expect(Set(descriptor.keys) == ["type", "id", "transports"])
            #expect(descriptor["type"] as? String == "public-key")
            #expect(descriptor["transports"] as? [String] == ["internal", "hybrid"])
            #expect(try PasskeyClient.bytes(descriptor["id"] as? String ?? "").count == 32)
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
