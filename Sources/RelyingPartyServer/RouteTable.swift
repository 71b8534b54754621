/// A table of routes with its literal paths indexed: a request is matched against the routes of exactly its path and
/// the parameter routes only, in table order, instead of against every route (that scan was the largest item of a
/// well-known file's profile once everything else had been made cheap). The public table is
/// `RelyingPartyServer.routeTable`, the admin listener's `RelyingPartyServer.adminRouteTable`.
struct RouteTable: Sendable {
    let routes: [Route]
    /// The indexes of the literal routes by path, in table order.
    private let literalRoutes: [String: [Int]]
    /// The indexes of the routes with parameter segments, in table order.
    private let parameterRoutes: [Int]

    init(_ routes: [Route]) {
        self.routes = routes
        var literal: [String: [Int]] = [:]
        var parameter: [Int] = []
        for (index, route) in routes.enumerated() {
            if route.isLiteral { literal[route.path, default: []].append(index) } else { parameter.append(index) }
        }
        literalRoutes = literal
        parameterRoutes = parameter
    }

    /// The route for `method` (HEAD already read as GET) and `path`: the first in table order whose path matches and
    /// whose method is `method`; else the methods of those whose path matches.
    func dispatch(_ method: String, _ path: String) -> RelyingPartyServer.Dispatch {
        var allowed: [String] = []
        var result: RelyingPartyServer.Dispatch?
        forEachMatch(of: path) { route, parameters in
            if route.method == method {
                result = .route(route, parameters: parameters)
                return false
            }
            allowed.append(route.method)
            return true
        }
        if let result { return result }
        return allowed.isEmpty ? .unrouted : .wrongMethod(allowed: allowed)
    }

    /// The pattern of the first route whose path matches `path`, whatever its method.
    func pattern(of path: String) -> String? {
        var pattern: String?
        forEachMatch(of: path) { route, _ in
            pattern = route.path
            return false
        }
        return pattern
    }

    /// Calls `body` with each route matching `path` and its parameters, in table order, while it returns true.
    private func forEachMatch(of path: String, _ body: (Route, [String]) -> Bool) {
        let literal = literalRoutes[path] ?? []
        var nextLiteral = 0
        var nextParameter = 0
        while nextLiteral < literal.count || nextParameter < parameterRoutes.count {
            let takesLiteral =
                nextParameter == parameterRoutes.count
                || (nextLiteral < literal.count && literal[nextLiteral] < parameterRoutes[nextParameter])
            if takesLiteral {
                let route = routes[literal[nextLiteral]]
                nextLiteral += 1
                guard body(route, []) else { return }
            } else {
                let route = routes[parameterRoutes[nextParameter]]
                nextParameter += 1
                guard let parameters = route.match(path) else { continue }
                guard body(route, parameters) else { return }
            }
        }
    }
}
