import Foundation
import HTTPFields
import HTTPServer
import TestSupport
import Testing

@testable import RelyingPartyServer

/// CORS for the JSON API: allowed origins (by default the relying party's https origins) get their own origin back
/// with credentials on every route's answer and preflight, never `*`; other origins get no CORS headers; every
/// route's answer varies by Origin; the cookie Origin check still accepts exactly the relying party's origins.
@Suite struct CORSTests {
    static let json = """
        {"relyingParty": {"id": "example.com", "origins": ["https://example.com", "https://www.example.com", "android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"]},
         "www": null}
        """

    static func preflight(_ server: RelyingPartyServer, _ path: String, origin: String, method: String) -> HTTPResponse {
        server.handle(
            HTTPRequest(
                method: "OPTIONS",
                path: path,
                headers: HTTPHeaders([
                    ("Origin", origin), ("Access-Control-Request-Method", method), ("Access-Control-Request-Headers", "content-type"),
                ])
            )
        )
    }

    @Test func anAllowedOriginsPreflightIsAnswered() throws {
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(Self.json))
        for origin in ["https://example.com", "https://www.example.com"] {
            let reply = Self.preflight(server, "/session/token", origin: origin, method: "POST")
            #expect(reply.status == 204)
            #expect(reply.headers["Access-Control-Allow-Origin"] == origin)
            #expect(reply.headers["Access-Control-Allow-Credentials"] == "true")
            #expect(reply.headers["Access-Control-Allow-Methods"] == "POST")
            #expect(reply.headers["Access-Control-Allow-Headers"] == "Authorization, Content-Type")
            #expect(reply.headers["Access-Control-Max-Age"] == "600")
            #expect(reply.headers["Vary"] == "Origin")
        }
        let me = Self.preflight(server, "/me", origin: "https://example.com", method: "DELETE")
        #expect(me.headers["Access-Control-Allow-Methods"] == "GET, DELETE, PATCH")
        let passkey = Self.preflight(server, "/me/passkeys/AbC", origin: "https://example.com", method: "PATCH")
        #expect(passkey.headers["Access-Control-Allow-Origin"] == "https://example.com")
    }

    @Test func otherOriginsAndMethodsGetNoCORSHeaders() throws {
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(Self.json))
        for (origin, method) in [
            ("https://evil.example", "POST"), ("null", "POST"), ("https://example.com.evil.example", "POST"), ("http://example.com", "POST"),
            ("android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", "POST"), ("https://example.com", "PUT"),
        ] {
            let reply = Self.preflight(server, "/session/token", origin: origin, method: method)
            #expect(reply.status == 204)
            #expect(!reply.headers.contains { $0.name.lowercased().hasPrefix("access-control-") }, "\(origin) \(method)")
            #expect(reply.headers["Vary"] == "Origin")
        }
        let answer = ServerReply(server.handle(HTTPRequest(method: "GET", path: "/me", headers: HTTPHeaders([("Origin", "https://evil.example")]))))
        #expect(answer.status == 401)
        #expect(answer.headers["Access-Control-Allow-Origin"] == nil)
        #expect(answer.headers["Vary"] == "Origin")
        // Not a route: no CORS at all.
        let unrouted = ServerReply(
            server.handle(HTTPRequest(method: "GET", path: "/nothing", headers: HTTPHeaders([("Origin", "https://example.com")])))
        )
        #expect(unrouted.headers["Access-Control-Allow-Origin"] == nil)
    }

    @Test func everyAnswerOfARouteCarriesTheHeadersErrorsIncluded() throws {
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(Self.json))
        for (method, path) in [("GET", "/me"), ("GET", "/.well-known/jwks.json"), ("POST", "/webauthn/authentication/options"), ("PUT", "/me")] {
            let reply = ServerReply(
                server.handle(
                    HTTPRequest(
                        method: method,
                        path: path,
                        headers: HTTPHeaders([("Origin", "https://www.example.com"), ("Content-Type", "application/json")]),
                        body: Array("{}".utf8)
                    )
                )
            )
            #expect(reply.headers["Access-Control-Allow-Origin"] == "https://www.example.com", "\(method) \(path) \(reply.status)")
            #expect(reply.headers["Access-Control-Allow-Credentials"] == "true")
            #expect(reply.headers["Vary"] == "Origin")
            #expect(!reply.headers.contains { $0.value == "*" })
        }
    }

    /// `cors.allowedOrigins` may name an origin outside the relying party's: its pages read the API, but a cookie
    /// write from it is still refused, since the cookie Origin check accepts exactly `relyingParty.origins`.
    @Test func theCookieOriginCheckStaysTheRelyingPartys() throws {
        let json = """
            {"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null,
             "cors": {"allowedOrigins": ["https://app.example.com"]}}
            """
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(json))
        let client = PasskeyClient(DirectTransport(handler: server))
        let account = try client.register("sam")
        let cookie = ("Cookie", "__Host-passkeyd_session=\(account.token)")
        let read = try client.send("GET", "/me", headers: [cookie, ("Origin", "https://app.example.com")])
        #expect(read.status == 200)
        #expect(read.headers["Access-Control-Allow-Origin"] == "https://app.example.com")
        let write = try client.send("POST", "/session/token", headers: [cookie, ("Origin", "https://app.example.com")])
        #expect(write.status == 403)
        #expect(write.errorCode == "origin_mismatch")
        // The relying party's own origin is no longer a CORS origin when the list is given.
        #expect(Self.preflight(server, "/me", origin: "https://example.com", method: "GET").headers["Access-Control-Allow-Origin"] == nil)
    }

    /// The files of `www` carry the same headers, so that a page of an allowed origin can import the web module
    /// (`import("https://auth.example.com/passkeyd.js")` fetches in CORS mode); another origin's import is refused.
    @Test func anAllowedOriginMayImportTheWebModule() throws {
        let json = """
            {"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": "\(StaticFileTests.repositoryWWW)",
             "cors": {"allowedOrigins": ["https://app.example.com"]}}
            """
        let server = try TestServerFactory.make(configuration: try TestServerFactory.configuration(json))
        func module(origin: String) -> ServerReply {
            ServerReply(server.handle(HTTPRequest(method: "GET", path: "/passkeyd.js", headers: HTTPHeaders([("Origin", origin)]))))
        }
        let allowed = module(origin: "https://app.example.com")
        #expect(allowed.status == 200)
        #expect(allowed.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(allowed.headers["Access-Control-Allow-Origin"] == "https://app.example.com")
        #expect(allowed.headers["Vary"] == "Origin")
        let other = module(origin: "https://evil.example")
        #expect(other.status == 200)
        #expect(!other.headers.contains { $0.name.lowercased().hasPrefix("access-control-") })
        #expect(other.headers["Vary"] == "Origin")
    }
}
