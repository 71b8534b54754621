import CryptoCore
import Foundation
import HTTPFields
import HTTPServer
import Storage
import TestSupport
import Testing
import WebAuthnCore

/// Routing, content type, JSON shape and username errors: each with its exact status and code, always JSON.
struct RequestErrorTests {
    let server: any HTTPHandler
    let client: PasskeyClient

    init() throws {
        server = try TestServerFactory.make()
        client = PasskeyClient(DirectTransport(handler: server))
    }

    private func expectError(_ reply: ServerReply, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == status, sourceLocation: sourceLocation)
        #expect(reply.errorCode == code, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.headers["Content-Type"] == "application/json", sourceLocation: sourceLocation)
        #expect(reply.object["message"] is String, sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        ("GET", "/nope"), ("GET", "/.well-known/unknown"), ("GET", "/"), ("POST", "/.well-known/webauthn"), ("DELETE", "/me/passkeys/"),
        ("PATCH", "/me/passkeys/AAAA/BBBB"), ("GET", "/me/"),
    ])
    func unknownRouteIsJSON404(method: String, path: String) throws {
        expectError(try client.send(method, path), 404, "not_found")
    }

    /// A path of the route table asked with another method (issue 12: 405 with `Allow`, no longer 404).
    @Test(arguments: [
        ("GET", "/me/passkeys/AAAA", "PATCH, DELETE"), ("POST", "/me", "GET, DELETE, PATCH, HEAD"),
        ("GET", "/webauthn/registration/options", "POST"), ("PUT", "/healthz", "GET, HEAD"), ("HEAD", "/logout", "POST"),
    ])
    func knownPathWithAnotherMethodIs405(method: String, path: String, allowed: String) throws {
        let reply = try client.send(method, path)
        expectError(reply, 405, "method_not_allowed")
        #expect(reply.headers["Allow"] == allowed)
    }

    /// Issue 15: a member name twice in one object was read first-wins (`{"username":"alice","username":"bob"}` asked
    /// for alice's options), where a proxy or a client library may read last-wins. Every body is strict JSON now.
    @Test(arguments: [
        ("/webauthn/authentication/options", #"{"username":"alice","username":"bob"}"#),
        ("/webauthn/registration/options", #"{"username":"carol","displayName":"C","username":"dave"}"#),
        ("/webauthn/authentication/verify", #"{"id":"AA","rawId":"AA","type":"public-key","response":{"clientDataJSON":"a","clientDataJSON":"b"}}"#),
    ])
    func aBodyThatIsNotStrictJSONIsInvalidJSON(path: String, body: String) throws {
        _ = try client.register("alice")
        expectError(try client.send("POST", path, json: Array(body.utf8)), 400, "invalid_json")
    }

    @Test func invalidUTF8InABodyIsInvalidJSON() throws {
        expectError(
            try client.send("POST", "/webauthn/authentication/options", json: Array(#"{"username":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)),
            400,
            "invalid_json"
        )
    }

    @Test(arguments: ["text/plain", "application/x-www-form-urlencoded", "application/jsonx", ""])
    func wrongContentTypeIs415(contentType: String) throws {
        let headers = contentType.isEmpty ? [(String, String)]() : [("Content-Type", contentType)]
        let reply = ServerReply(
            server.handle(
                HTTPRequest(
                    method: "POST",
                    path: "/webauthn/registration/options",
                    headers: HTTPHeaders(headers),
                    body: Array(#"{"username":"alice"}"#.utf8)
                )
            )
        )
        expectError(reply, 415, "unsupported_media_type")
    }

    @Test func contentTypeWithCharsetIsAccepted() throws {
        let reply = try client.send(
            "POST",
            "/webauthn/registration/options",
            json: Array(#"{"username":"alice"}"#.utf8),
            headers: [("Content-Type", "Application/JSON; charset=utf-8")]
        )
        #expect(reply.status == 200)
    }

    @Test(arguments: [
        "/webauthn/registration/options", "/webauthn/registration/verify", "/webauthn/authentication/options",
        "/webauthn/authentication/verify",
    ])
    func malformedJSONIs400(path: String) throws {
        for body in ["{", "", "{\"username\": }", "{'username': 'a'}", "\u{FF}"] {
            expectError(try client.send("POST", path, json: Array(body.utf8)), 400, "invalid_json")
        }
        for body in ["[1,2]", "\"text\"", "7"] {
            expectError(try client.send("POST", path, json: Array(body.utf8)), 400, "invalid_request")
        }
    }

    @Test func wrongMemberTypeIsInvalidRequest() throws {
        expectError(try client.send("POST", "/webauthn/registration/options", json: Array(#"{"username":5}"#.utf8)), 400, "invalid_request")
        expectError(try client.send("POST", "/webauthn/authentication/verify", json: Array(#"{"id":"a"}"#.utf8)), 400, "invalid_request")
    }

    @Test(arguments: [
        #"{}"#, #"{"username":""}"#, #"{"username":"   "}"#, #"{"username":"a\u0007b"}"#,
        #"{"username":"\#(String(repeating: "x", count: 65))"}"#,
    ])
    func missingOrInvalidUsernameIs400(body: String) throws {
        expectError(try client.send("POST", "/webauthn/registration/options", json: Array(body.utf8)), 400, "invalid_username")
    }

    @Test func invalidOptionValuesAre400() throws {
        for body in [
            #"{"username":"a","residentKey":"sometimes"}"#, #"{"username":"a","userVerification":"always"}"#,
            #"{"username":"a","hints":["carrier-pigeon"]}"#,
        ] {
            expectError(try client.send("POST", "/webauthn/registration/options", json: Array(body.utf8)), 400, "invalid_request")
        }
        expectError(
            try client.send("POST", "/webauthn/authentication/options", json: Array(#"{"userVerification":"never"}"#.utf8)),
            400,
            "invalid_request"
        )
    }

    /// Only the codes the README documents: a bad display name or passkey name is `invalid_request`.
    @Test func invalidDisplayNameAndPasskeyNameAreInvalidRequest() throws {
        let long = String(repeating: "x", count: 65)
        expectError(
            try client.send("POST", "/webauthn/registration/options", json: Array(#"{"username":"alice","displayName":"\#(long)"}"#.utf8)),
            400,
            "invalid_request"
        )
        let account = try client.register("alice")
        for name in ["", "  ", long, "a\u{0}b"] {
            let body = Array(try JSONEncoder().encode(["name": name]))
            expectError(
                try client.send(
                    "PATCH",
                    "/me/passkeys/" + Base64URL.encode(account.credential.id),
                    json: body,
                    headers: PasskeyClient.bearer(account.token)
                ),
                400,
                "invalid_request"
            )
        }
        expectError(
            try client.send(
                "PATCH",
                "/me/passkeys/" + Base64URL.encode(account.credential.id),
                json: Array("{}".utf8),
                headers: PasskeyClient.bearer(account.token)
            ),
            400,
            "invalid_request"
        )
    }

    @Test func takenUsernameIs409AtOptions() throws {
        _ = try client.register("alice")
        expectError(try client.registrationOptions(username: "alice"), 409, "username_taken")
        expectError(try client.registrationOptions(username: "  alice "), 409, "username_taken")
    }

    @Test func takenUsernameIs409AtVerifyWhenTwoRegistrationsRace() throws {
        let first = try client.registrationOptions(username: "carol").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let second = try client.registrationOptions(username: "carol").decode(PublicKeyCredentialCreationOptionsJSON.self)
        let (_, firstResponse) = try client.answer(first)
        let (secondCredential, secondResponse) = try client.answer(second)
        #expect(try client.registrationVerify(firstResponse).status == 200)
        let reply = try client.registrationVerify(secondResponse)
        expectError(reply, 409, "username_taken")
        #expect(reply.object["token"] == nil)
        #expect(reply.headers["Set-Cookie"] == nil)
        // The loser's passkey was not stored and cannot sign in.
        expectError(try client.signIn(secondCredential), 400, "verification_failed")
    }

    @Test func errorsForSignedInEndpointsWithoutSessionAre401() throws {
        for (method, path) in [("GET", "/me"), ("GET", "/me/passkeys"), ("DELETE", "/me"), ("POST", "/logout"), ("DELETE", "/me/passkeys/AAAA")] {
            expectError(try client.send(method, path), 401, "not_signed_in")
            expectError(try client.send(method, path, headers: PasskeyClient.bearer("not-a-token")), 401, "not_signed_in")
        }
    }

    @Test func healthz() throws {
        let reply = try client.send("GET", "/healthz")
        #expect(reply.status == 200)
        #expect(reply.object["status"] as? String == "ok")
        #expect(reply.headers["X-Content-Type-Options"] == "nosniff")
    }
}
