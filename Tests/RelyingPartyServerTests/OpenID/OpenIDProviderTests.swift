import CryptoCore
import Foundation
import HTTPServer
import Storage
import TestSupport
import Testing

@testable import RelyingPartyServer

/// The OpenID provider without sockets: authorize, token, userinfo, revoke and discovery through `handle`, with a
/// manual clock; every refusal the issue lists.
@Suite("OpenID provider")
struct OpenIDProviderTests {
    static let secret = "the-web-client-secret"
    static let configuration = """
        {"relyingParty": {"id": "example.com", "name": "Example", "origins": ["https://example.com"]}, "www": null,
         "oidc": {"clients": [
            {"id": "ios", "name": "iOS app", "type": "public", "redirectURIs": ["com.example.app:/callback", "http://127.0.0.1/cb"]},
            {"id": "web", "name": "Web app", "type": "confidential", "secretSHA256": "\(Hex.encode(DigestAlgorithm.sha256.hash(Array(secret.utf8))))",
             "redirectURIs": ["https://web.example/callback"], "scopes": ["openid", "email"]}
         ]}}
        """
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    let fixture: TokenFixture
    let account: PasskeyClient.Account
    var cookie: [(String, String)] { [("Cookie", "__Host-passkeyd_session=\(account.token)")] }

    /// With `consented`, olivia has allowed the public client `ios` once (a grant), so that its authorizations go
    /// straight through as a confidential client's do.
    init(configuration: String = OpenIDProviderTests.configuration, consented: Bool = true) throws {
        fixture = try TokenFixture(configuration)
        account = try fixture.client.register("olivia")
        if consented { _ = try exchange(try code()) }
    }

    static func query(_ pairs: [(String, String)]) -> String {
        pairs.map { "\($0.0)=\(FormFields.encode($0.1))" }.joined(separator: "&")
    }

    static func authorizeQuery(
        client: String = "ios",
        redirect: String = "com.example.app:/callback",
        extra: [(String, String)] = [],
        without: Set<String> = []
    ) -> String {
        let pairs = [
            ("response_type", "code"), ("client_id", client), ("redirect_uri", redirect), ("scope", "openid profile email"),
            ("state", "st&ate=1"), ("nonce", "n-0S6_WzA2Mj"), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        return query(pairs.filter { !without.contains($0.0) } + extra)
    }

    func authorize(_ query: String, headers: [(String, String)]? = nil) throws -> ServerReply {
        try fixture.client.send("GET", "/oauth/authorize?" + query, headers: headers ?? cookie)
    }

    /// The query of a redirect's Location, decoded.
    static func parameters(_ reply: ServerReply) -> [String: String] {
        parameters(location: reply.headers["Location"] ?? "")
    }

    /// The query of `location`, decoded.
    static func parameters(location: String) -> [String: String] {
        guard let query = location.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
        return FormFields(String(query)).values
    }

    func code(client: String = "ios", redirect: String = "com.example.app:/callback", scope: String? = nil) throws -> String {
        let reply = try authorize(
            Self.authorizeQuery(
                client: client,
                redirect: redirect,
                extra: scope.map { [("scope", $0)] } ?? [],
                without: scope == nil ? [] : ["scope"]
            )
        )
        if Self.asksConsent(reply) {
            let query = Self.authorizeQuery(
                client: client,
                redirect: redirect,
                extra: scope.map { [("scope", $0)] } ?? [],
                without: scope == nil ? [] : ["scope"]
            )
            let allowed = try Self.allow(query, cookie: cookie, with: fixture.client)
            return try #require(Self.parameters(location: allowed.object["redirect"] as? String ?? "")["code"], "\(allowed.text)")
        }
        let code = try #require(Self.parameters(reply)["code"], "\(reply.status) \(reply.headers["Location"] ?? reply.text)")
        return code
    }

    /// Whether `reply` sends the browser to the hosted page's consent view.
    static func asksConsent(_ reply: ServerReply) -> Bool {
        let location = reply.headers["Location"] ?? ""
        return location.hasPrefix("/oauth/sign-in?") && location.hasSuffix("&passkeyd_consent=1")
    }

    /// The consent view's "Allow" (`POST /oauth/consent`) of the authorization request `query`, from the hosted page.
    static func allow(
        _ query: String,
        cookie: [(String, String)],
        with client: PasskeyClient,
        origin: String? = "https://example.com"
    ) throws
        -> ServerReply
    {
        try client.send(
            "POST",
            "/oauth/consent",
            json: Array(try JSONEncoder().encode(["request": query])),
            headers: cookie + (origin.map { [("Origin", $0)] } ?? [])
        )
    }

    func token(_ pairs: [(String, String)], headers: [(String, String)] = []) throws -> ServerReply {
        try fixture.client.send(
            "POST",
            "/oauth/token",
            json: Array(Self.query(pairs).utf8),
            headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers
        )
    }

    func exchange(
        _ code: String,
        client: String = "ios",
        redirect: String = "com.example.app:/callback",
        verifier: String = verifier
    ) throws -> ServerReply {
        try token([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect), ("code_verifier", verifier), ("client_id", client),
        ])
    }

    func refresh(_ refreshToken: String, client: String = "ios") throws -> ServerReply {
        try token([("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", client)])
    }

    func userInfo(_ accessToken: String) throws -> ServerReply {
        try fixture.client.send("GET", "/oauth/userinfo", headers: PasskeyClient.bearer(accessToken))
    }

    // MARK: discovery

    @Test func discoveryNamesTheEndpointsAndCapabilities() throws {
        let document = try fixture.client.send("GET", "/.well-known/openid-configuration").object
        #expect(document["issuer"] as? String == "https://example.com")
        #expect(document["authorization_endpoint"] as? String == "https://example.com/oauth/authorize")
        #expect(document["token_endpoint"] as? String == "https://example.com/oauth/token")
        #expect(document["userinfo_endpoint"] as? String == "https://example.com/oauth/userinfo")
        #expect(document["revocation_endpoint"] as? String == "https://example.com/oauth/revoke")
        #expect(document["jwks_uri"] as? String == "https://example.com/.well-known/jwks.json")
        #expect(document["code_challenge_methods_supported"] as? [String] == ["S256"])
        #expect(document["response_types_supported"] as? [String] == ["code"])
        #expect(document["scopes_supported"] as? [String] == ["openid", "profile", "email"])
        #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["ES256"])
        #expect((document["token_endpoint_auth_methods_supported"] as? [String])?.contains("client_secret_basic") == true)
    }

    // MARK: authorize

    @Test func anUnknownClientOrRedirectURIIsAnErrorPageNeverARedirect() throws {
        for query in [
            Self.authorizeQuery(client: "nobody"), Self.authorizeQuery(without: ["client_id"]),
            Self.authorizeQuery(redirect: "https://evil.example/callback"), Self.authorizeQuery(redirect: "com.example.app:/callback/x"),
            Self.authorizeQuery(without: ["redirect_uri"]), Self.authorizeQuery(client: "web", redirect: "com.example.app:/callback"),
            Self.authorizeQuery() + "&client_id=ios",
        ] {
            let reply = try authorize(query)
            #expect(reply.status == 400 || reply.status == 401, "\(query)")
            #expect(reply.headers["Location"] == nil, "\(query)")
            #expect(reply.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(reply.headers["X-Frame-Options"] == "DENY")
            #expect(reply.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
        }
        #expect(try authorize(Self.authorizeQuery(client: "nobody")).text.contains("invalid_client"))
        #expect(try authorize(Self.authorizeQuery(redirect: "https://evil.example/cb")).text.contains("invalid_redirect_uri"))
    }

    @Test func otherErrorsGoToTheRedirectURIWithTheState() throws {
        let cases: [(String, String)] = [
            (Self.authorizeQuery(without: ["code_challenge"]), "invalid_request"),
            (Self.authorizeQuery(without: ["code_challenge_method"]), "invalid_request"),
            (Self.authorizeQuery(extra: [("code_challenge_method", "plain")], without: ["code_challenge_method"]), "invalid_request"),
            (Self.authorizeQuery(extra: [("code_challenge", "short")], without: ["code_challenge"]), "invalid_request"),
            (Self.authorizeQuery(extra: [("response_type", "token")], without: ["response_type"]), "unsupported_response_type"),
            (Self.authorizeQuery(without: ["response_type"]), "invalid_request"),
            (Self.authorizeQuery(extra: [("scope", "profile email")], without: ["scope"]), "invalid_scope"),
            (Self.authorizeQuery(extra: [("scope", "openid admin")], without: ["scope"]), "invalid_scope"),
            (Self.authorizeQuery(extra: [("prompt", "none login")]), "invalid_request"),
            (Self.authorizeQuery(extra: [("response_mode", "fragment")]), "invalid_request"),
            (Self.authorizeQuery() + "&nonce=again", "invalid_request"),
            (Self.authorizeQuery(extra: [("passkeyd_cancel", "1")]), "access_denied"),
        ]
        for (query, code) in cases {
            let reply = try authorize(query)
            #expect(reply.status == 302, "\(query)")
            #expect(reply.headers["Location"]?.hasPrefix("com.example.app:/callback?") == true, "\(reply.headers["Location"] ?? "")")
            let parameters = Self.parameters(reply)
            #expect(parameters["error"] == code, "\(query): \(parameters)")
            #expect(parameters["state"] == "st&ate=1")
            #expect(parameters["iss"] == "https://example.com")
            #expect(parameters["code"] == nil)
        }
        // The web client may not ask for profile.
        let web = try authorize(Self.authorizeQuery(client: "web", redirect: "https://web.example/callback"))
        #expect(Self.parameters(web)["error"] == "invalid_scope")
    }

    @Test func aSignedInPersonGoesStraightThroughAndAnyoneElseToTheSignInPage() throws {
        let signedIn = try authorize(Self.authorizeQuery())
        #expect(signedIn.status == 302)
        let parameters = Self.parameters(signedIn)
        #expect(parameters["code"]?.isEmpty == false && parameters["state"] == "st&ate=1" && parameters["iss"] == "https://example.com")
        // A loopback redirect URI on the port the app chose.
        let loopback = try authorize(Self.authorizeQuery(redirect: "http://127.0.0.1:49152/cb"))
        #expect(loopback.headers["Location"]?.hasPrefix("http://127.0.0.1:49152/cb?code=") == true)
        // No cookie, a stale one, or two (one planted: neither is used) sign nobody in.
        let planted = [("Cookie", "__Host-passkeyd_session=\(account.token); __Host-passkeyd_session=planted")]
        for headers in [[], [("Cookie", "__Host-passkeyd_session=stale")], planted] {
            let reply = try authorize(Self.authorizeQuery(), headers: headers)
            #expect(reply.status == 302)
            #expect(reply.headers["Location"] == "/oauth/sign-in?" + Self.authorizeQuery())
        }
        // prompt=login and an old sign-in under max_age ask for a new sign-in.
        #expect(try authorize(Self.authorizeQuery(extra: [("prompt", "login")])).headers["Location"]?.hasPrefix("/oauth/sign-in?") == true)
        fixture.clock.advance(by: 120)
        #expect(try authorize(Self.authorizeQuery(extra: [("max_age", "60")])).headers["Location"]?.hasPrefix("/oauth/sign-in?") == true)
        #expect(Self.parameters(try authorize(Self.authorizeQuery(extra: [("max_age", "600")])))["code"] != nil)
    }

    @Test func promptNoneWithoutASessionIsLoginRequired() throws {
        for headers in [[], [("Sec-Fetch-Site", "same-origin")], [("Sec-Fetch-Site", "none")]] {
            let reply = try authorize(Self.authorizeQuery(extra: [("prompt", "none")]), headers: headers)
            #expect(Self.parameters(reply)["error"] == "login_required", "\(headers)")
            #expect(Self.parameters(reply)["state"] == "st&ate=1")
        }
        // From another site the SameSite=Strict cookie is not sent: one same-site round trip through the page first.
        let crossSite = try authorize(Self.authorizeQuery(extra: [("prompt", "none")]), headers: [("Sec-Fetch-Site", "cross-site")])
        #expect(crossSite.headers["Location"]?.hasPrefix("/oauth/sign-in?") == true)
        // Signed in: a code without a page; with a sign-in older than max_age: login_required.
        #expect(Self.parameters(try authorize(Self.authorizeQuery(extra: [("prompt", "none")])))["code"] != nil)
        fixture.clock.advance(by: 120)
        #expect(Self.parameters(try authorize(Self.authorizeQuery(extra: [("prompt", "none"), ("max_age", "5")])))["error"] == "login_required")
    }

    // MARK: token

    @Test func theCodeFlowGivesVerifiableTokensAndUserInfo() throws {
        let code = try code()
        let reply = try exchange(code)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.headers["Cache-Control"] == "no-store" && reply.headers["Pragma"] == "no-cache")
        let body = reply.object
        #expect(body["token_type"] as? String == "Bearer")
        #expect(body["scope"] as? String == "openid profile email")
        let accessToken = try #require(body["access_token"] as? String)
        let idToken = try DecodedToken(try #require(body["id_token"] as? String))
        #expect(idToken.header["typ"] as? String == "JWT" && idToken.header["alg"] as? String == "ES256")
        let claims = idToken.claims
        #expect(claims["iss"] as? String == "https://example.com")
        #expect(claims["sub"] as? String == Base64URL.encode(account.userID))
        #expect(claims["aud"] as? String == "ios" && claims["azp"] as? String == "ios")
        #expect(claims["nonce"] as? String == "n-0S6_WzA2Mj")
        #expect(claims["amr"] as? [String] == ["pop", "user", "mfa"])
        #expect(claims["preferred_username"] as? String == "olivia")
        #expect((claims["auth_time"] as? Int).map { Double($0) <= fixture.clock.now.timeIntervalSince1970 } == true)
        let hash = DigestAlgorithm.sha256.hash(Array(accessToken.utf8))
        #expect(claims["at_hash"] as? String == Base64URL.encode(Array(hash.prefix(16))))
        let access = try DecodedToken(accessToken).claims
        #expect(access["aud"] as? String == "ios" && access["client_id"] as? String == "ios" && access["scope"] as? String == "openid profile email")
        // The ID token verifies with the published key.
        let jwks = try fixture.client.send("GET", "/.well-known/jwks.json").object["keys"] as? [[String: Any]]
        #expect(jwks?.contains { $0["kid"] as? String == idToken.keyID } == true)
        let info = try userInfo(accessToken)
        #expect(info.status == 200, "\(info.text)")
        #expect(info.object["sub"] as? String == Base64URL.encode(account.userID) && info.object["preferred_username"] as? String == "olivia")
        // An OpenID access token is not a first-party one: passkeyd's own routes refuse it, and a first-party token is
        // not one for userinfo.
        #expect(try fixture.client.send("GET", "/me", headers: PasskeyClient.bearer(accessToken)).status == 401)
        let firstParty = try #require(try fixture.mint(PasskeyClient.bearer(account.token)).object["accessToken"] as? String)
        #expect(try userInfo(firstParty).status == 401)
        #expect(try userInfo("garbage").headers["WWW-Authenticate"]?.contains("invalid_token") == true)
    }

    @Test func withSubjectExternalIdTheTokensAndUserInfoNameTheAppsUser() throws {
        let json = Self.configuration.replacingOccurrences(of: #""www": null,"#, with: #""www": null, "tokens": {"subject": "externalId"},"#)
        let provider = try OpenIDProviderTests(configuration: json)
        var user = try #require(try provider.fixture.store.user(id: provider.account.userID))
        user.externalID = "crm-7"
        _ = try provider.fixture.store.transaction { transaction throws(StorageError) in try transaction.updateUser(user) }
        let reply = try provider.exchange(try provider.code())
        let idToken = try DecodedToken(try #require(reply.object["id_token"] as? String)).claims
        #expect(idToken["sub"] as? String == "crm-7" && idToken["external_id"] as? String == "crm-7")
        let accessToken = try #require(reply.object["access_token"] as? String)
        #expect(try DecodedToken(accessToken).claims["sub"] as? String == "crm-7")
        let info = try provider.userInfo(accessToken)
        #expect(info.status == 200 && info.object["sub"] as? String == "crm-7", "\(info.text)")
        // Under the default, passkeyd's id is sub and the app's id a claim of its own.
        _ = try fixture.store.transaction { transaction throws(StorageError) in
            var olivia = try transaction.user(id: account.userID)!
            olivia.externalID = "crm-8"
            return try transaction.updateUser(olivia)
        }
        let plain = try DecodedToken(try #require(try exchange(try code()).object["id_token"] as? String)).claims
        #expect(plain["sub"] as? String == Base64URL.encode(account.userID) && plain["external_id"] as? String == "crm-8")
    }

    @Test func pkceIsRequiredAndChecked() throws {
        let missing = try token([
            ("grant_type", "authorization_code"), ("code", try code()), ("redirect_uri", "com.example.app:/callback"), ("client_id", "ios"),
        ])
        #expect(missing.status == 400 && missing.errorCode == "invalid_request" && missing.object["member"] as? String == "code_verifier")
        let wrongCode = try code()
        let wrong = try exchange(wrongCode, verifier: String(repeating: "a", count: 43))
        #expect(wrong.status == 400 && wrong.errorCode == "invalid_grant")
        // The failed attempt used the code up: the right verifier cannot follow.
        #expect(try exchange(wrongCode).errorCode == "invalid_grant")
    }

    @Test func aCodeIsBoundToItsClientAndRedirectURIAndExpires() throws {
        #expect(try exchange(try code(), redirect: "http://127.0.0.1/cb").errorCode == "invalid_grant")
        let webCode = try code(client: "web", redirect: "https://web.example/callback", scope: "openid email")
        let stolen = try exchange(webCode, client: "ios", redirect: "https://web.example/callback")
        #expect(stolen.errorCode == "invalid_grant")
        let late = try code()
        fixture.clock.advance(by: 61)
        #expect(try exchange(late).errorCode == "invalid_grant")
        #expect(try exchange("unknown-code").errorCode == "invalid_grant")
    }

    @Test func aReusedCodeIsRefusedAndRevokesWhatItIssued() throws {
        let code = try code()
        let first = try exchange(code).object
        let accessToken = try #require(first["access_token"] as? String)
        let refreshToken = try #require(first["refresh_token"] as? String)
        #expect(try userInfo(accessToken).status == 200)
        let again = try exchange(code)
        #expect(again.status == 400 && again.errorCode == "invalid_grant")
        #expect(try userInfo(accessToken).status == 401)
        #expect(try refresh(refreshToken).errorCode == "invalid_grant")
    }

    @Test func refreshTokensRotateAndAReuseRevokesTheFamily() throws {
        let first = try exchange(try code()).object
        let refreshToken = try #require(first["refresh_token"] as? String)
        let rotated = try refresh(refreshToken)
        #expect(rotated.status == 200, "\(rotated.text)")
        let next = try #require(rotated.object["refresh_token"] as? String)
        let accessToken = try #require(rotated.object["access_token"] as? String)
        #expect(next != refreshToken)
        #expect((try DecodedToken(try #require(rotated.object["id_token"] as? String))).claims["nonce"] == nil)
        #expect(try userInfo(accessToken).status == 200)
        // Another client cannot use it, and its attempt uses nothing up.
        let other = try token(
            [("grant_type", "refresh_token"), ("refresh_token", next)],
            headers: [("Authorization", "Basic " + Data("web:\(Self.secret)".utf8).base64EncodedString())]
        )
        #expect(other.errorCode == "invalid_grant")
        // The old one again: reuse, and the whole family is revoked.
        #expect(try refresh(refreshToken).errorCode == "invalid_grant")
        #expect(try refresh(next).errorCode == "invalid_grant")
        #expect(try userInfo(accessToken).status == 401)
    }

    @Test func confidentialClientsAuthenticateWithTheirSecret() throws {
        let redirect = "https://web.example/callback"
        func webExchange(_ headers: [(String, String)], _ extra: [(String, String)]) throws -> ServerReply {
            let code = try code(client: "web", redirect: redirect, scope: "openid email")
            return try token(
                [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect), ("code_verifier", Self.verifier)] + extra,
                headers: headers
            )
        }
        let basic = [("Authorization", "Basic " + Data("web:\(Self.secret)".utf8).base64EncodedString())]
        #expect(try webExchange(basic, []).status == 200)
        #expect(try webExchange([], [("client_id", "web"), ("client_secret", Self.secret)]).status == 200)
        for (headers, extra) in [
            ([("Authorization", "Basic " + Data("web:wrong".utf8).base64EncodedString())], []),
            ([], [("client_id", "web"), ("client_secret", "wrong")]),
            ([], [("client_id", "web")]),
            (basic, [("client_secret", Self.secret)]),
            ([("Authorization", "Basic !!!")], []),
        ] as [([(String, String)], [(String, String)])] {
            let reply = try webExchange(headers, extra)
            #expect(reply.status == 401 && reply.errorCode == "invalid_client", "\(headers) \(extra)")
            #expect(reply.headers["WWW-Authenticate"]?.hasPrefix("Basic") == true)
        }
        // A public client never sends a secret; an unknown client is refused.
        #expect(try token([("grant_type", "authorization_code"), ("client_id", "ios"), ("client_secret", "x")]).errorCode == "invalid_client")
        #expect(try token([("grant_type", "authorization_code"), ("client_id", "nobody")]).errorCode == "invalid_client")
        #expect(try token([("grant_type", "password"), ("client_id", "ios")]).errorCode == "unsupported_grant_type")
        let json = try fixture.client.send("POST", "/oauth/token", json: Array("{}".utf8))
        #expect(json.status == 415)
    }

    @Test func revocationEndsTheGrant() throws {
        let tokens = try exchange(try code()).object
        let refreshToken = try #require(tokens["refresh_token"] as? String)
        let accessToken = try #require(tokens["access_token"] as? String)
        func revoke(_ token: String, client: String = "ios") throws -> ServerReply {
            try fixture.client.send(
                "POST",
                "/oauth/revoke",
                json: Array(Self.query([("token", token), ("client_id", client)]).utf8),
                headers: [("Content-Type", "application/x-www-form-urlencoded")]
            )
        }
        // RFC 7009 §2.2: an unknown token is 200 too.
        #expect(try revoke("unknown").status == 200)
        #expect(try userInfo(accessToken).status == 200)
        #expect(try revoke(refreshToken).status == 200)
        #expect(try userInfo(accessToken).status == 401)
        #expect(try refresh(refreshToken).errorCode == "invalid_grant")
        // An access token revokes its grant as well.
        let second = try exchange(try code()).object
        let secondAccess = try #require(second["access_token"] as? String)
        #expect(try revoke(secondAccess).status == 200)
        #expect(try refresh(try #require(second["refresh_token"] as? String)).errorCode == "invalid_grant")
        #expect(try revoke("x", client: "nobody").errorCode == "invalid_client")
    }

    @Test func deletingTheAccountEndsItsGrants() throws {
        let tokens = try exchange(try code()).object
        let accessToken = try #require(tokens["access_token"] as? String)
        #expect(try fixture.client.send("DELETE", "/me", headers: PasskeyClient.bearer(account.token)).status == 200)
        #expect(try userInfo(accessToken).status == 401)
        #expect(try refresh(try #require(tokens["refresh_token"] as? String)).errorCode == "invalid_grant")
    }
}
