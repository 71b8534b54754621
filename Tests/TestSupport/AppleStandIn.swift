import CryptoCore
import Foundation
import HTTPFields
import HTTPServer
import Synchronization

/// A local stand-in for Apple's Sign in with Apple endpoints on 127.0.0.1 (plain HTTP, which the `apple` block
/// accepts for loopback addresses): serves a JWKS of test RSA keys, accepts token, revoke and user migration calls and
/// records them. While `available` is false it answers 503 to everything, as Apple does when it is down.
///
/// User migration (app transfers), as Apple documents it: `POST /auth/token` with `grant_type=client_credentials` and
/// `scope=user.migration` gives an access token; `POST /auth/usermigrationinfo` with that bearer and `sub` + `target`
/// gives the `transfer_sub` for the target team (`transferSubject(for:team:)`), and with `transfer_sub` gives the
/// recipient team's `sub` and private relay email (`recipientSubject(for:)`). Subjects and transfer subjects in
/// `failingSubjects` get a 500.
///
/// `@unchecked Sendable`: `server` and `baseURL` are written only in `init`; everything else is behind `state`.
public final class AppleStandIn: HTTPHandler, @unchecked Sendable {
    /// One recorded call.
    public struct Call: Sendable {
        public let path: String
        public let contentType: String?
        public let form: [String: String]
        public let authorization: String?
    }

    private struct State {
        var available = true
        var servesMalformedKeys = false
        var keyIDs: [String] = [AppleTestKeys.primaryKeyID]
        var calls: [Call] = []
        var issuedRefreshTokens: [String] = []
        var migrationAccessTokens: Set<String> = []
        /// transfer_sub → the sending team's sub.
        var transfers: [String: String] = [:]
        var failingSubjects: Set<String> = []
    }

    private let state = Mutex(State())
    private var server: HTTPServer?

    /// The stand-in's base URL, e.g. http://127.0.0.1:49152.
    public private(set) var baseURL = ""

    public init() throws {
        let server = try HTTPServer(configuration: HTTPServerConfiguration(httpAddress: "127.0.0.1:0", threads: 1, log: .discarding), handler: self)
        server.start()
        baseURL = "http://127.0.0.1:\(server.httpPort!)"
        self.server = server
    }

    deinit {
        server?.stop()
    }

    public var available: Bool {
        get { state.withLock { $0.available } }
        set { state.withLock { $0.available = newValue } }
    }

    /// Makes the key endpoint answer 200 with a document that is not a usable JWKS.
    public var servesMalformedKeys: Bool {
        get { state.withLock { $0.servesMalformedKeys } }
        set { state.withLock { $0.servesMalformedKeys = newValue } }
    }

    /// Publishes the rotated key next to the primary one.
    public func publishRotatedKey() {
        state.withLock { $0.keyIDs = [AppleTestKeys.primaryKeyID, AppleTestKeys.rotatedKeyID] }
    }

    /// Subjects or transfer subjects whose migration call fails with 500.
    public var failingSubjects: Set<String> {
        get { state.withLock { $0.failingSubjects } }
        set { state.withLock { $0.failingSubjects = newValue } }
    }

    /// Records the transfer of `subject` to `team` as if the sending team had asked for it, and returns its transfer
    /// identifier (for a recipient's database filled without a transfer-out against this stand-in).
    @discardableResult
    public func recordTransfer(of subject: String, to team: String) -> String {
        let transfer = Self.transferSubject(for: subject, team: team)
        state.withLock { $0.transfers[transfer] = subject }
        return transfer
    }

    /// Makes every migration access token issued so far invalid (answered 401), as when it expires.
    public func expireMigrationAccessTokens() {
        state.withLock { $0.migrationAccessTokens = [] }
    }

    /// The transfer identifier Apple issues for `subject` moving to `team`.
    public static func transferSubject(for subject: String, team: String) -> String {
        "transfer." + Hex.encode(DigestAlgorithm.sha256.hash(Array("\(subject)>\(team)".utf8)).prefix(12))
    }

    /// The recipient team's `sub` for the user whose sending-team `sub` was `subject`.
    public static func recipientSubject(for subject: String) -> String {
        "002." + Hex.encode(DigestAlgorithm.sha256.hash(Array("recipient:\(subject)".utf8)).prefix(16)) + ".0001"
    }

    /// The recipient team's private relay address for that user.
    public static func recipientEmail(for subject: String) -> String {
        Hex.encode(DigestAlgorithm.sha256.hash(Array("mail:\(subject)".utf8)).prefix(6)) + "@privaterelay.appleid.com"
    }

    public var calls: [Call] { state.withLock { $0.calls } }
    public func calls(to path: String) -> [Call] { calls.filter { $0.path == path } }
    public var issuedRefreshTokens: [String] { state.withLock { $0.issuedRefreshTokens } }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let call = Call(
            path: request.path,
            contentType: request.headers["content-type"],
            form: Self.form(request.body),
            authorization: request.headers["authorization"]
        )
        let (available, keyIDs, malformed) = state.withLock { state in
            state.calls.append(call)
            return (state.available, state.keyIDs, state.servesMalformedKeys)
        }
        guard available else { return .json(status: 503, Array(#"{"error":"temporarily_unavailable"}"#.utf8)) }
        switch (request.method, request.path) {
        case ("GET", "/auth/keys") where malformed:
            return .json(status: 200, Array(#"{"keys": [{"kty": "EC", "kid": "x"}]}"#.utf8))
        case ("GET", "/auth/keys"):
            return .json(status: 200, (try? AppleTestKeys.jwks(keyIDs)) ?? [])
        case ("POST", "/auth/token") where call.form["grant_type"] == "client_credentials":
            guard call.form["scope"] == "user.migration", call.form["client_id"] != nil, call.form["client_secret"] != nil else {
                return .json(status: 400, Array(#"{"error":"invalid_request"}"#.utf8))
            }
            let accessToken = "m." + Base64URL.encode(SystemRandom().bytes(count: 18))
            state.withLock { _ = $0.migrationAccessTokens.insert(accessToken) }
            return .json(status: 200, Array(#"{"access_token":"\#(accessToken)","token_type":"Bearer","expires_in":3600}"#.utf8))
        case ("POST", "/auth/usermigrationinfo"):
            return migrationInfo(call)
        case ("POST", "/auth/token"):
            guard call.form["grant_type"] == "authorization_code", call.form["code"] != nil else {
                return .json(status: 400, Array(#"{"error":"invalid_grant"}"#.utf8))
            }
            let refreshToken = "r." + Base64URL.encode(SystemRandom().bytes(count: 24))
            state.withLock { $0.issuedRefreshTokens.append(refreshToken) }
            let body = #"{"access_token":"a.token","token_type":"Bearer","expires_in":3600,"refresh_token":"\#(refreshToken)","id_token":"x.y.z"}"#
            return .json(status: 200, Array(body.utf8))
        case ("POST", "/auth/revoke"):
            return HTTPResponse(status: 200)
        case ("GET", "/auth/authorize"):
            return authorizePage(Self.form(Array((request.query ?? "").utf8)))
        default:
            return .json(status: 404, Array("{}".utf8))
        }
    }

    /// Apple's authorization page of the web flow (`response_mode=form_post`): a "Continue" form that posts `state`,
    /// `code`, `id_token` (for `client_id`, with `nonce` as given, a subject made from the nonce, or `login_hint` when
    /// given) and `user` (the name and email Apple sends on a first authorization) to `redirect_uri`, and a "Cancel"
    /// form that posts `error=user_cancelled_authorize` with the `state`, as Apple does when the person cancels.
    private func authorizePage(_ query: [String: String]) -> HTTPResponse {
        guard let clientID = query["client_id"], let redirect = query["redirect_uri"], let state = query["state"], let nonce = query["nonce"],
            query["response_mode"] == "form_post", query["response_type"] == "code id_token",
            redirect.hasPrefix("https://") || redirect.hasPrefix("http://")
        else { return .json(status: 400, Array(#"{"error":"invalid_request"}"#.utf8)) }
        let subject = query["login_hint"] ?? "001" + Hex.encode(DigestAlgorithm.sha256.hash(Array(nonce.utf8)).prefix(12)) + ".0001"
        var claims = AppleTokenMinter.identityClaims(now: Date(), rawNonce: "", subject: subject, audience: clientID)
        claims["nonce"] = nonce
        guard let token = try? AppleTokenMinter.sign(claims) else { return .json(status: 500, Array("{}".utf8)) }
        let user = #"{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"\#(AppleTokenMinter.email)"}"#
        func field(_ name: String, _ value: String) -> String {
            "<input type=\"hidden\" name=\"\(name)\" value=\"\(Self.escaped(value))\">"
        }
        let code = "c." + Base64URL.encode(SystemRandom().bytes(count: 16))
        let html = """
            <!doctype html><html lang="en"><meta charset="utf-8"><title>Apple stand-in</title>
            <form id="apple-continue-form" method="post" action="\(Self.escaped(redirect))">\(field("state", state))\(field("code", code))\(field("id_token", token))\(field("user", user))<button id="apple-continue" type="submit">Continue</button></form>
            <form id="apple-cancel-form" method="post" action="\(Self.escaped(redirect))">\(field("state", state))\(field("error", "user_cancelled_authorize"))<button id="apple-cancel" type="submit">Cancel</button></form>
            </html>
            """
        return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]), body: Array(html.utf8))
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
    }

    private func migrationInfo(_ call: Call) -> HTTPResponse {
        let bearer = call.authorization.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil } ?? ""
        let (authorized, failing) = state.withLock { ($0.migrationAccessTokens.contains(bearer), $0.failingSubjects) }
        guard authorized else { return .json(status: 401, Array(#"{"error":"invalid_token"}"#.utf8)) }
        guard call.form["client_id"] != nil, call.form["client_secret"] != nil else {
            return .json(status: 400, Array(#"{"error":"invalid_client"}"#.utf8))
        }
        if let subject = call.form["sub"], let team = call.form["target"] {
            guard !failing.contains(subject) else { return .json(status: 500, Array("{}".utf8)) }
            let transfer = Self.transferSubject(for: subject, team: team)
            state.withLock { $0.transfers[transfer] = subject }
            return .json(status: 200, Array(#"{"transfer_sub":"\#(transfer)"}"#.utf8))
        }
        if let transfer = call.form["transfer_sub"] {
            guard !failing.contains(transfer) else { return .json(status: 500, Array("{}".utf8)) }
            guard let subject = state.withLock({ $0.transfers[transfer] }) else {
                return .json(status: 400, Array(#"{"error":"invalid_request"}"#.utf8))
            }
            let body = #"{"sub":"\#(Self.recipientSubject(for: subject))","email":"\#(Self.recipientEmail(for: subject))","is_private_email":true}"#
            return .json(status: 200, Array(body.utf8))
        }
        return .json(status: 400, Array(#"{"error":"invalid_request"}"#.utf8))
    }

    /// Decodes an application/x-www-form-urlencoded body.
    public static func form(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }
}
