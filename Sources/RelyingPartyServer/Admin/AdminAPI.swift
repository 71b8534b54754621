import AccessTokens
import ConfigurationFile
import CryptoCore
import Foundation
import HTTPEdge
import HTTPServer
import Observability

/// The handler of the admin listener (`listen.admin`): `RelyingPartyServer.adminRoutes` only, every request behind
/// `Authorization: Bearer <admin key>` (`admin.keys`, compared by SHA-256 in constant time against every key), checked
/// before the path is even looked at, except `/metrics` when the listener is on a loopback address (a route flagged
/// `openOnLoopback`). Every call is logged with the key's name, the method, the route pattern and the status (a
/// scrape of `/metrics` at `debug`); never the key, the path itself or a body.
public final class AdminAPI: HTTPHandler, Sendable {
    let server: RelyingPartyServer

    public init(server: RelyingPartyServer) {
        self.server = server
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let method = request.method == "HEAD" ? "GET" : request.method
        let route = RelyingPartyServer.route(of: request.path, in: RelyingPartyServer.adminRouteTable)
        var response: HTTPResponse
        var keyName = "(refused)"
        let isOpen = isOpenOnLoopback(method: method, path: request.path)
        do throws(ServerError) {
            keyName = isOpen ? "(loopback)" : try authenticate(request).name
            response = try respond(to: request, method: method)
        } catch {
            if error.code == .adminUnauthorized { keyName = "(refused: \(error.detail ?? "no key"))" }
            let detail = error.status >= 500 ? error.detail.map { " (\($0))" } ?? "" : ""
            server.log("admin \(keyName) \(method) \(route) \(error.status) \(error.code)\(detail)")
            response = error.response
        }
        if response.status < 400 {
            server.log.write(
                LogRecord(level: isOpen ? .debug : .info, event: "admin", message: "admin \(keyName) \(method) \(route) \(response.status)")
            )
        }
        response.headers.add("X-Content-Type-Options", "nosniff")
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    /// Whether the request is for a route served without a key on this listener: one flagged `openOnLoopback`, with
    /// `listen.admin` on a loopback address.
    private func isOpenOnLoopback(method: String, path: String) -> Bool {
        guard let address = server.configuration.adminAddress, ServerConfiguration.isLoopback(address),
            case .route(let route, _) = RelyingPartyServer.dispatch(method, path, in: RelyingPartyServer.adminRouteTable)
        else { return false }
        return route.flags.contains(.openOnLoopback)
    }

    /// The admin key of the request, or `401 admin_unauthorized` (the detail, for the log, says which way it failed).
    private func authenticate(_ request: HTTPRequest) throws(ServerError) -> BackendKey {
        guard let authorization = request.headers["authorization"], authorization.lowercased().hasPrefix("bearer ") else {
            throw ServerError(.adminUnauthorized, detail: "no key")
        }
        let presented = authorization.dropFirst(7).trimmingCharacters(in: .whitespaces)
        guard presented.utf8.count <= 512, let key = BackendKey.matching(presented, in: server.settings.withLock { $0.adminKeys }) else {
            throw ServerError(.adminUnauthorized, detail: "wrong key")
        }
        return key
    }

    private func respond(to request: HTTPRequest, method: String) throws(ServerError) -> HTTPResponse {
        switch RelyingPartyServer.dispatch(method, request.path, in: RelyingPartyServer.adminRouteTable) {
        case .route(let route, let parameters):
            // Every admin body refuses the members its call does not take (`JSONBody.refusesUnknownMembers`).
            do {
                return try JSONBody.$refusesUnknownMembers.withValue(true) {
                    try route.handler(server, request, RouteContext(parameters: parameters, session: nil, isOnLoop: false))
                }
            } catch let error as ServerError {
                throw error
            } catch {
                throw ServerError(.internalError, detail: "\(error)")
            }
        case .wrongMethod(let allowed):
            var error = ServerError(.methodNotAllowed)
            error.headers = [("Allow", (allowed.contains("GET") ? allowed + ["HEAD"] : allowed).joined(separator: ", "))]
            throw error
        case .unrouted:
            throw ServerError(.notFound)
        }
    }
}
