extension RelyingPartyServer {
    /// The admin listener's table (`listen.admin`), one line per endpoint as `routes`; every route is behind an admin
    /// key (`AdminAPI`), but `/metrics` on a loopback listener (`openOnLoopback`), and none is in the public table.
    /// The admin routes, indexed.
    static let adminRouteTable = RouteTable(adminRoutes)

    static let adminRoutes: [Route] = [
        Route("GET", "/admin/users", [.noStore], \.admin, AdminController.searchUsers),
        Route("POST", "/admin/users", [.noStore], \.admin, AdminController.createUser),
        Route("GET", "/admin/users/{id}", [.noStore], \.admin, AdminController.user),
        Route("PATCH", "/admin/users/{id}", [.noStore], \.admin, AdminController.updateUser),
        Route("DELETE", "/admin/users/{id}", [.noStore], \.admin, AdminController.deleteUser),
        Route("POST", "/admin/users/{id}/sessions/revoke", [.noStore], \.admin, AdminController.revokeSessions),
        Route("POST", "/admin/users/{id}/merge", [.noStore], \.admin, AdminController.mergeUsers),
        Route("DELETE", "/admin/users/{id}/passkeys/{credentialId}", [.noStore], \.admin, AdminController.deletePasskey),
        Route("POST", "/admin/users/{id}/enrollment-links", [.noStore], \.admin, AdminController.createEnrollmentLink),
        Route("GET", "/admin/export", [.noStore], \.admin, AdminController.export),
        Route("POST", "/admin/import", [.noStore], \.admin, AdminController.importUsers),
        Route("GET", "/admin/webhooks/deliveries", [.noStore], \.admin, AdminController.webhookDeliveries),
        Route("POST", "/admin/webhooks/deliveries/{id}/retry", [.noStore], \.admin, AdminController.retryWebhookDelivery),
        Route("GET", "/metrics", [.noStore, .openOnLoopback], \.operations, OperationsController.metrics),
        Route("GET", "/admin/mail", [.noStore], \.admin, AdminController.mailMessages),
        Route("GET", "/admin/mail/suppressions", [.noStore], \.admin, AdminController.mailSuppressions),
        Route("DELETE", "/admin/mail/suppressions/{address}", [.noStore], \.admin, AdminController.clearMailSuppression),
    ]
}
