import CryptoCore
import Foundation
import HTTPServer
import Synchronization

/// A local stand-in for Apple's Sign in with Apple endpoints on 127.0.0.1 (plain HTTP, which the `apple` block
/// accepts for loopback addresses): serves a JWKS of test RSA keys, accepts token and revoke calls and records them.
/// While `available` is false it answers 503 to everything, as Apple does when it is down.
///
/// `@unchecked Sendable`: `server` and `baseURL` are written only in `init`; everything else is behind `state`.
final class AppleStandIn: HTTPHandler, @unchecked Sendable {
    /// One recorded call.
    struct Call: Sendable {
        let path: String
        let contentType: String?
        let form: [String: String]
    }

    private struct State {
        var available = true
        var servesMalformedKeys = false
        var keyIDs: [String] = [AppleTestKeys.primaryKeyID]
        var calls: [Call] = []
        var issuedRefreshTokens: [String] = []
    }

    private let state = Mutex(State())
    private var server: HTTPServer?

    /// The stand-in's base URL, e.g. http://127.0.0.1:49152.
    private(set) var baseURL = ""

    init() throws {
        let server = try HTTPServer(configuration: HTTPServerConfiguration(httpAddress: "127.0.0.1:0", threads: 1, log: { _ in }), handler: self)
        server.start()
        baseURL = "http://127.0.0.1:\(server.httpPort!)"
        self.server = server
    }

    deinit {
        server?.stop()
    }

    var available: Bool {
        get { state.withLock { $0.available } }
        set { state.withLock { $0.available = newValue } }
    }

    /// Makes the key endpoint answer 200 with a document that is not a usable JWKS.
    var servesMalformedKeys: Bool {
        get { state.withLock { $0.servesMalformedKeys } }
        set { state.withLock { $0.servesMalformedKeys = newValue } }
    }

    /// Publishes the rotated key next to the primary one.
    func publishRotatedKey() {
        state.withLock { $0.keyIDs = [AppleTestKeys.primaryKeyID, AppleTestKeys.rotatedKeyID] }
    }

    var calls: [Call] { state.withLock { $0.calls } }
    func calls(to path: String) -> [Call] { calls.filter { $0.path == path } }
    var issuedRefreshTokens: [String] { state.withLock { $0.issuedRefreshTokens } }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let call = Call(path: request.path, contentType: request.headers["content-type"], form: Self.form(request.body))
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
        default:
            return .json(status: 404, Array("{}".utf8))
        }
    }

    /// Decodes an application/x-www-form-urlencoded body.
    static func form(_ body: [UInt8]) -> [String: String] {
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
