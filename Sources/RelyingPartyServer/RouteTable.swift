/// A table of routes with its literal paths indexed: a request is matched against the routes of exactly its path and
/// the parameter routes only, in table order, instead of against every route (that scan was the largest item of a
/// well-known file's profile once everything else had been made cheap). For a path some literal route has, every
/// match (the parameter routes' too) is found once, when the table is made: a well-known file or a ceremony's route
/// runs no parameter route's match per request. The public table is `RelyingPartyServer.routeTable`, the admin
/// listener's `RelyingPartyServer.adminRouteTable`.
struct RouteTable: Sendable {
    let routes: [Route]
    /// Every route matching each literal route's path, with its parameters, in table order.
    private let literalPathMatches: [String: [(route: Int, parameters: [String])]]
    /// The indexes of the routes with parameter segments, in table order.
    private let parameterRoutes: [Int]

    init(_ routes: [Route]) {
        self.routes = routes
        parameterRoutes = routes.indices.filter { !routes[$0].isLiteral }
        var matches: [String: [(route: Int, parameters: [String])]] = [:]
        for path in Set(routes.filter(\.isLiteral).map(\.path)) {
            matches[path] = routes.indices.compactMap { index in routes[index].match(path).map { (index, $0) } }
        }
        literalPathMatches = matches
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
        if let matches = literalPathMatches[path] {
            for match in matches {
                guard body(routes[match.route], match.parameters) else { return }
            }
            return
        }
        for index in parameterRoutes {
            guard let parameters = routes[index].match(path) else { continue }
            guard body(routes[index], parameters) else { return }
        }
    }
}
