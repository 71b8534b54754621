import Foundation
import HTTPEdge
import HTTPFields
import HTTPServer
import TestSupport
import Testing

@testable import RelyingPartyServer

/// The route table: its flags as the server applies them, `{id}` matching, 405 with `Allow`, HEAD as GET, and the
/// log's route label.
struct RouteTableTests {
    @Test func methodAndPathAreUniqueAndPatternsWellFormed() {
        let keys = RelyingPartyServer.routes.map { "\($0.method) \($0.path)" }
        #expect(Set(keys).count == keys.count)
        for route in RelyingPartyServer.routes {
            #expect(route.path.hasPrefix("/") && !route.path.hasSuffix("/"), "\(route.path)")
            #expect(route.path.components(separatedBy: "{id}").count <= 2, "\(route.path) has more than one {id}")
            #expect(["GET", "POST", "PATCH", "DELETE", "PUT"].contains(route.method), "\(route.method)")
        }
    }

    /// Every route's flags: every ceremony and Apple POST counts against the per-address limit, every answer but
    /// `/healthz` and the two public documents is `no-store`; the routes that ignore session credentials (every other
    /// refuses stale ones before its handler); and an access token stands for its session only where the route reads
    /// the account without changing it or does not use the session at all (every other refuses a live one with 403); and
    /// the two GETs that start a session, after which the outbox workers are woken as after every other method.
    static let flags: [String: Route.Flags] = [
        "GET /healthz": [.sessionIgnored, .answersFromMemory], "GET /readyz": [.sessionIgnored, .noStore],
        "GET /openapi.json": [.sessionIgnored, .answersFromMemory],
        "POST /webauthn/registration/options": [.rateLimitedPerAddress, .noStore, .recoverySessionAllowed],
        "POST /webauthn/registration/verify": [.rateLimitedPerAddress, .noStore, .recoverySessionAllowed, .allowsAccessToken],
        "POST /webauthn/authentication/options": [.rateLimitedPerAddress, .noStore, .allowsAccessToken],
        "POST /webauthn/authentication/verify": [.rateLimitedPerAddress, .noStore, .allowsAccessToken],
        "GET /me": [.noStore, .recoverySessionAllowed, .allowsAccessToken], "DELETE /me": [.noStore],
        "GET /me/passkeys": [.noStore, .allowsAccessToken], "PATCH /me/passkeys/{id}": [.noStore], "DELETE /me/passkeys/{id}": [.noStore],
        "POST /logout": [.noStore, .recoverySessionAllowed],
        "GET /me/sessions": [.noStore], "DELETE /me/sessions/{id}": [.noStore], "POST /me/sessions/revoke-others": [.noStore],
        "POST /me/recovery-codes": [.noStore], "POST /auth/recovery": [.rateLimitedPerAddress, .noStore],
        "POST /auth/password": [.rateLimitedPerAddress, .noStore],
        "POST /auth/apple/nonce": [.rateLimitedPerAddress, .noStore, .allowsAccessToken],
        "POST /auth/apple": [.rateLimitedPerAddress, .noStore],
        "POST /auth/{provider}/nonce": [.rateLimitedPerAddress, .noStore, .allowsAccessToken],
        "POST /auth/{provider}": [.rateLimitedPerAddress, .noStore],
        "DELETE /me/identities/{provider}/{subject}": [.noStore],
        "GET /auth/{provider}/start": [.rateLimitedPerAddress, .noStore, .sessionIgnored],
        "GET /auth/{provider}/callback": [.rateLimitedPerAddress, .noStore, .sessionIgnored, .writesOnGet],
        "POST /auth/apple/notifications": [.rateLimitedPerAddress, .noStore, .sessionIgnored],
        "GET /auth/apple/start": [.rateLimitedPerAddress, .noStore, .sessionIgnored],
        "POST /auth/apple/callback": [.rateLimitedPerAddress, .noStore, .sessionIgnored],
        "POST /me/merge": [.rateLimitedPerAddress, .noStore], "POST /me/link-suggestion/decline": [.noStore],
        "DELETE /me/apple/{id}": [.noStore], "POST /session/handoff": [.rateLimitedPerAddress, .noStore],
        "GET /session/handoff": [.rateLimitedPerAddress, .noStore, .sessionIgnored, .writesOnGet],
        "POST /session/handoff/switch": [.rateLimitedPerAddress, .noStore, .sessionIgnored],
        "POST /session/token": [.noStore], "POST /introspect": [.noStore, .sessionIgnored],
        "GET /.well-known/jwks.json": [.sessionIgnored], "GET /.well-known/openid-configuration": [.sessionIgnored, .answersFromMemory],
        // The OpenID provider: its clients' requests carry no passkeyd session credential (the authorization endpoint
        // reads the cookie itself, a stale one meaning nobody is signed in).
        "GET /oauth/authorize": [.rateLimitedPerAddress, .noStore, .sessionIgnored], "GET /oauth/sign-in": [.noStore, .sessionIgnored],
        "POST /oauth/token": [.rateLimitedPerAddress, .noStore, .sessionIgnored],
        "POST /oauth/revoke": [.rateLimitedPerAddress, .noStore, .sessionIgnored],
        "GET /oauth/userinfo": [.noStore, .sessionIgnored], "POST /oauth/userinfo": [.noStore, .sessionIgnored],
        // The consent view's calls read the cookie themselves (a bearer token, an app's, cannot consent).
        "GET /oauth/consent": [.noStore, .sessionIgnored], "POST /oauth/consent": [.rateLimitedPerAddress, .noStore, .sessionIgnored],
        // Mail: what a stranger can trigger is limited per address; a link's page and its POST need no session (the
        // token is the proof).
        "PATCH /me": [.rateLimitedPerAddress, .noStore], "POST /me/email/verify": [.rateLimitedPerAddress, .noStore],
        "GET /email/verify": [.noStore, .sessionIgnored], "POST /email/verify": [.rateLimitedPerAddress, .noStore, .sessionIgnored],
        "POST /auth/recovery/email": [.rateLimitedPerAddress, .noStore], "GET /auth/recovery/email": [.noStore, .sessionIgnored],
        "POST /auth/recovery/email/session": [.rateLimitedPerAddress, .noStore, .sessionIgnored],
        // The recovery page's script: compiled in, the same for everyone.
        "GET /auth/recovery/email/page.js": [.sessionIgnored, .answersFromMemory],
        // The mail providers' bounce webhooks: authenticated as the provider's, never by a session.
        "POST /email/events/{provider}": [.noStore, .sessionIgnored],
    ]

    /// Routes whose handler may run for a request with stale credentials; nothing else.
    static let sessionIgnoring: Set<String> = [
        "GET /healthz", "GET /readyz", "GET /openapi.json", "POST /auth/apple/notifications", "GET /session/handoff", "POST /introspect",
        "GET /.well-known/jwks.json", "GET /.well-known/openid-configuration", "GET /oauth/authorize", "GET /oauth/sign-in",
        "POST /oauth/token", "POST /oauth/revoke", "GET /oauth/userinfo", "POST /oauth/userinfo", "GET /auth/apple/start",
        "POST /auth/apple/callback", "GET /auth/{provider}/start", "GET /auth/{provider}/callback", "GET /oauth/consent", "POST /oauth/consent",
        "POST /session/handoff/switch", "GET /email/verify", "POST /email/verify", "GET /auth/recovery/email", "POST /auth/recovery/email/session",
        "GET /auth/recovery/email/page.js", "POST /email/events/{provider}",
    ]

    /// Routes whose answers may be cached; every other route must be `no-store` (a new one is, unless listed here).
    static let cacheable: Set<String> = [
        "GET /healthz", "GET /openapi.json", "GET /.well-known/jwks.json", "GET /.well-known/openid-configuration",
        "GET /auth/recovery/email/page.js",
    ]

    @Test func everyRouteHasItsPinnedFlags() throws {
        let routes = Dictionary(uniqueKeysWithValues: RelyingPartyServer.routes.map { ("\($0.method) \($0.path)", $0.flags) })
        #expect(Set(routes.keys) == Set(Self.flags.keys), "a new route gets its line in RouteTableTests.flags")
        for (route, flags) in Self.flags {
            #expect(routes[route] == flags, "\(route)")
        }
        for (route, flags) in routes {
            #expect(flags.contains(.noStore) != Self.cacheable.contains(route), "\(route): no-store unless it is listed as cacheable")
            #expect(flags.contains(.sessionIgnored) == Self.sessionIgnoring.contains(route), "\(route): stale sessions refused unless listed")
        }
    }

    /// Only what is answered from memory runs on the event-loop thread: the routes flagged so, preflights, other
    /// methods' 405s, the well-known and static files. Every route that may wait on the store or the network (the
    /// JWKS may reload keys from the store) goes to the worker pool.
    @Test func onlyAnswersFromMemoryRunOnTheLoop() throws {
        let server = try TestServerFactory.make()
        let onLoop: Set<String> = ["GET /healthz", "GET /openapi.json", "GET /.well-known/openid-configuration", "GET /auth/recovery/email/page.js"]
        for route in RelyingPartyServer.routes {
            let path = route.path.replacingOccurrences(of: "{id}", with: "AAAA")
            #expect(
                (server.answerOnLoop(HTTPRequest(method: route.method, path: path)) != nil) == onLoop.contains("\(route.method) \(route.path)"),
                "\(route.method) \(route.path)"
            )
        }
        #expect(server.answerOnLoop(HTTPRequest(method: "HEAD", path: "/healthz")) != nil)
        #expect(server.answerOnLoop(HTTPRequest(method: "GET", path: "/.well-known/apple-app-site-association")) != nil)
        #expect(server.answerOnLoop(HTTPRequest(method: "GET", path: "/index.html")) != nil)
        #expect(server.answerOnLoop(HTTPRequest(method: "OPTIONS", path: "/me")) != nil)
        #expect(server.answerOnLoop(HTTPRequest(method: "POST", path: "/webauthn/authentication/verify")) == nil)
    }

    /// A discoverable sign-in's options are a sealed challenge, made from memory: answered on the loop. A username (whose
    /// account is looked up), a session credential (which is resolved) or a body that is not JSON goes to the pool.
    @Test func discoverableOptionsWithoutCredentialsRunOnTheLoop() throws {
        let server = try TestServerFactory.make()
        func options(_ body: String, _ headers: [(String, String)] = []) -> HTTPRequest {
            HTTPRequest(
                method: "POST",
                path: "/webauthn/authentication/options",
                headers: HTTPHeaders([("Content-Type", "application/json")] + headers),
                body: Array(body.utf8)
            )
        }
        let onLoop = try #require(server.answerOnLoop(options("{}")))
        #expect(onLoop.status == 200)
        #expect(server.answerOnLoop(options(#"{"userVerification": "required"}"#))?.status == 200)
        #expect(server.answerOnLoop(options(#"{"username": "alice"}"#)) == nil)
        #expect(server.answerOnLoop(options("{}", [("Authorization", "Bearer abc")])) == nil)
        #expect(server.answerOnLoop(options("{}", [("Cookie", "__Host-passkeyd_session=abc")])) == nil)
        #expect(server.answerOnLoop(options("{")) == nil)
        #expect(server.answerOnLoop(HTTPRequest(method: "POST", path: "/webauthn/authentication/options")) == nil)
    }

    /// The indexed table answers as a scan of every route in order would, for every route's path (with its
    /// parameters filled in) under every method, and for paths no route has.
    @Test func theIndexedTableDispatchesAsAScanOfEveryRoute() {
        for table in [RelyingPartyServer.routeTable, RelyingPartyServer.adminRouteTable] {
            let methods = Set(table.routes.map(\.method)).union(["OPTIONS", "PUT"])
            let paths =
                table.routes.map { $0.path.replacingOccurrences(of: "{id}", with: "AAAA").replacingOccurrences(of: "{credentialId}", with: "BBBB") }
                + ["/", "/nothing", "/me/", "/me/passkeys/", "/admin/users/", "/.well-known/apple-app-site-association"]
            for path in paths {
                for method in methods {
                    #expect(
                        Self.describe(table.dispatch(method, path)) == Self.describe(Self.scan(table.routes, method, path)),
                        "\(method) \(path)"
                    )
                }
                #expect(table.pattern(of: path) == table.routes.first { $0.match(path) != nil }?.path, "\(path)")
            }
        }
    }

    /// A parameter route that matches a literal route's path wins when it comes first in the table and follows it
    /// otherwise, whichever method each has: the literal paths' matches found when the table is made keep table order.
    @Test func parameterRoutesOverlappingALiteralPathKeepTableOrder() {
        let answer: @Sendable (RelyingPartyServer) -> (HTTPRequest) throws(ServerError) -> HTTPResponse = { _ in { _ in HTTPResponse(status: 204) } }
        let table = RouteTable([
            Route("GET", "/items/{id}", [], answer),
            Route("GET", "/items/new", [], answer),
            Route("POST", "/items/new", [], answer),
            Route("POST", "/items/{id}", [], answer),
            Route("DELETE", "/items/{id}", [], answer),
            Route("PUT", "/other", [], answer),
        ])
        for path in ["/items/new", "/items/7", "/other", "/items", "/items/"] {
            for method in ["GET", "POST", "DELETE", "PUT", "PATCH"] {
                #expect(
                    Self.describe(table.dispatch(method, path)) == Self.describe(Self.scan(table.routes, method, path)),
                    "\(method) \(path)"
                )
            }
            #expect(table.pattern(of: path) == table.routes.first { $0.match(path) != nil }?.path, "\(path)")
        }
        // GET /items/new is the parameter route's (first in the table), with "new" as its parameter.
        #expect(Self.describe(table.dispatch("GET", "/items/new")) == Self.describe(.route(table.routes[0], parameters: ["new"])))
        #expect(Self.describe(table.dispatch("POST", "/items/new")) == Self.describe(.route(table.routes[2], parameters: [])))
    }

    /// The reference: every route in table order.
    private static func scan(_ routes: [Route], _ method: String, _ path: String) -> RelyingPartyServer.Dispatch {
        var allowed: [String] = []
        for route in routes {
            guard let parameters = route.match(path) else { continue }
            if route.method == method { return .route(route, parameters: parameters) }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .unrouted : .wrongMethod(allowed: allowed)
    }

    private static func describe(_ dispatch: RelyingPartyServer.Dispatch) -> String {
        switch dispatch {
        case .route(let route, let parameters): "route \(route.method) \(route.path) \(parameters)"
        case .wrongMethod(let allowed): "wrong method \(allowed)"
        case .unrouted: "unrouted"
        }
    }

    @Test func anIDSegmentMatchesOneNonEmptySegment() throws {
        let route = try #require(RelyingPartyServer.routes.first { $0.path == "/me/passkeys/{id}" })
        #expect(route.match("/me/passkeys/AbC-_9") == ["AbC-_9"])
        #expect(route.match("/me/passkeys/") == nil)
        #expect(route.match("/me/passkeys") == nil)
        #expect(route.match("/me/passkeys/a/b") == nil)
        #expect(route.match("/me/passkeysX/a") == nil)
        let literal = try #require(RelyingPartyServer.routes.first { $0.path == "/me" })
        #expect(literal.match("/me") == [])
        #expect(literal.match("/me/") == nil)
    }

    @Test func theLogNamesTheRoutePatternNeverThePath() {
        #expect(RelyingPartyServer.route(of: "/me/passkeys/c2VjcmV0LWlk") == "/me/passkeys/{id}")
        #expect(RelyingPartyServer.route(of: "/webauthn/registration/verify") == "/webauthn/registration/verify")
        #expect(RelyingPartyServer.route(of: "/alice@example.com") == "(unrouted)")
    }

    @Test func headIsAnsweredAsGet() throws {
        let server = try TestServerFactory.make()
        let reply = ServerReply(server.handle(HTTPRequest(method: "HEAD", path: "/healthz")))
        #expect(reply.status == 200)
        #expect(reply.headers["Cache-Control"] == nil)
    }

    /// With a burst of one, the second request of an address to each rate-limited route is refused before its
    /// handler runs; a route without the flag is never refused.
    @Test func rateLimitedRoutesTakeFromTheAddressBucket() throws {
        let configuration = try TestServerFactory.configuration(
            #"{"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "rateLimits": {"perAddressPerMinute": 1, "perAddressBurst": 1}}"#
        )
        for route in RelyingPartyServer.routes {
            let server = try TestServerFactory.make(configuration: configuration)
            let path = route.path.replacingOccurrences(of: "{id}", with: "AAAA")
            let request = HTTPRequest(method: route.method, path: path, headers: HTTPHeaders([("Content-Type", "application/json")]), body: [])
            _ = server.handle(request)
            let second = ServerReply(server.handle(request))
            #expect((second.errorCode == "rate_limited") == route.flags.contains(.rateLimitedPerAddress), "\(route.method) \(route.path)")
        }
    }

    @Test func noStoreRoutesAnswerWithNoStore() throws {
        let server = try TestServerFactory.make()
        let options = ServerReply(
            server.handle(
                HTTPRequest(
                    method: "POST",
                    path: "/webauthn/authentication/options",
                    headers: HTTPHeaders([("Content-Type", "application/json")]),
                    body: Array("{}".utf8)
                )
            )
        )
        #expect(options.status == 200)
        #expect(options.headers["Cache-Control"] == "no-store")
        #expect(options.headers["X-Content-Type-Options"] == "nosniff")
    }
}
