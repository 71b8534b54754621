import Foundation
import HTTPServer

extension RelyingPartyServer {
    /// The service every admin route calls.
    var admin: AdminService { AdminService(server: self) }

    /// `GET /admin/users?query=&cursor=&limit=`.
    func adminSearchUsers(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let limit = try request.queryValue("limit").map { (text: String) throws(ServerError) -> Int in
            guard let limit = Int(text) else { throw ServerError(.invalidRequest, member: "limit") }
            return limit
        }
        let page = try admin.searchUsers(
            query: request.queryValue("query") ?? "",
            cursor: request.queryValue("cursor"),
            limit: limit
        )
        return JSONBody.ok(page)
    }

    /// `GET /admin/users/{id}`.
    func adminUser(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        JSONBody.ok(try admin.user(id: context.identifier))
    }

    /// `POST /admin/users` `{"username", "displayName"?, "email"?, "emailVerified"?}`: 201 with the user.
    func adminCreateUser(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let change = try JSONBody.decode(AdminUserChange.self, from: request)
        return JSONBody.ok(["user": try admin.createUser(change)], status: 201)
    }

    /// `PATCH /admin/users/{id}` `{"username"?, "displayName"?, "email"?, "emailVerified"?}`.
    func adminUpdateUser(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let change = try JSONBody.decode(AdminUserChange.self, from: request)
        return JSONBody.ok(["user": try admin.updateUser(id: context.identifier, change)])
    }

    /// `DELETE /admin/users/{id}`.
    func adminDeleteUser(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        try admin.deleteUser(id: context.identifier)
        return JSONBody.ok(["deleted": true])
    }

    /// `POST /admin/users/{id}/sessions/revoke`.
    func adminRevokeSessions(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        JSONBody.ok(["revoked": try admin.revokeSessions(userID: context.identifier)])
    }

    /// `DELETE /admin/users/{id}/passkeys/{credentialId}`.
    func adminDeletePasskey(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        try admin.deletePasskey(userID: context.identifier, credentialID: context.parameters.last ?? "")
        return JSONBody.ok(["deleted": true])
    }

    /// `POST /admin/users/{id}/enrollment-links`: 201 `{"url", "expiresAt"}`.
    func adminCreateEnrollmentLink(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        JSONBody.ok(try admin.createEnrollmentLink(userID: context.identifier), status: 201)
    }

    /// `GET /admin/export`: NDJSON (`AdminExport`).
    func adminExport(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: HTTPHeaders([
                ("Content-Type", "application/x-ndjson"), ("Content-Disposition", "attachment; filename=\"passkeyd-export.ndjson\""),
            ]),
            body: try admin.export()
        )
    }

    /// `POST /admin/import`: an export as `application/x-ndjson`, or with `?format=firebase` a `firebase auth:export`
    /// file as `application/json`.
    func adminImport(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let contentType = request.headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        switch request.queryValue("format") {
        case nil:
            guard contentType == "application/x-ndjson" else { throw ServerError(.unsupportedMediaType) }
            return JSONBody.ok(try admin.importExport(request.body))
        case "firebase":
            guard contentType == "application/json" else { throw ServerError(.unsupportedMediaType) }
            return JSONBody.ok(try admin.importFirebase(request.body))
        default:
            throw ServerError(.invalidRequest, member: "format")
        }
    }

    /// `GET /admin/webhooks/deliveries?status=&cursor=&limit=`.
    func adminWebhookDeliveries(_ request: HTTPRequest) throws(ServerError) -> HTTPResponse {
        let limit = try request.queryValue("limit").map { (text: String) throws(ServerError) -> Int in
            guard let limit = Int(text) else { throw ServerError(.invalidRequest, member: "limit") }
            return limit
        }
        let page = try admin.webhookDeliveries(
            status: request.queryValue("status"),
            cursor: request.queryValue("cursor"),
            limit: limit
        )
        return JSONBody.ok(page)
    }

    /// `POST /admin/webhooks/deliveries/{id}/retry`.
    func adminRetryWebhookDelivery(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        try admin.retryWebhookDelivery(id: context.identifier)
        return JSONBody.ok(["queued": true])
    }
}
