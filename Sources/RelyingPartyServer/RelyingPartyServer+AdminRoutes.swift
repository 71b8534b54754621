extension RelyingPartyServer {
    /// The admin listener's table (`listen.admin`), one line per endpoint as `routes`; every route is behind an admin
    /// key (`AdminAPI`), but `/metrics` on a loopback listener (`openOnLoopback`), and none is in the public table.
    /// The admin routes, indexed.
    static let adminRouteTable = RouteTable(adminRoutes)

    static let adminRoutes: [Route] = [
        Route("GET", "/admin/users", [.noStore], RelyingPartyServer.adminSearchUsers),
        Route("POST", "/admin/users", [.noStore], RelyingPartyServer.adminCreateUser),
        Route("GET", "/admin/users/{id}", [.noStore], RelyingPartyServer.adminUser),
        Route("PATCH", "/admin/users/{id}", [.noStore], RelyingPartyServer.adminUpdateUser),
        Route("DELETE", "/admin/users/{id}", [.noStore], RelyingPartyServer.adminDeleteUser),
        Route("POST", "/admin/users/{id}/sessions/revoke", [.noStore], RelyingPartyServer.adminRevokeSessions),
        Route("DELETE", "/admin/users/{id}/passkeys/{credentialId}", [.noStore], RelyingPartyServer.adminDeletePasskey),
        Route("POST", "/admin/users/{id}/enrollment-links", [.noStore], RelyingPartyServer.adminCreateEnrollmentLink),
        Route("GET", "/admin/export", [.noStore], RelyingPartyServer.adminExport),
        Route("POST", "/admin/import", [.noStore], RelyingPartyServer.adminImport),
        Route("GET", "/admin/webhooks/deliveries", [.noStore], RelyingPartyServer.adminWebhookDeliveries),
        Route("POST", "/admin/webhooks/deliveries/{id}/retry", [.noStore], RelyingPartyServer.adminRetryWebhookDelivery),
        Route("GET", "/metrics", [.noStore, .openOnLoopback], \.operations, OperationsController.metrics),
    ]
}
