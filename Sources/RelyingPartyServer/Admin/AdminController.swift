import Foundation
import HTTPEdge
import HTTPFields
import HTTPServer
import UserImport

/// The admin API's routes (`listen.admin`, behind an admin key checked by `AdminAPI`): each translates HTTP to one
/// `AdminService` call, which `passkeyd admin` makes too.
struct AdminController: Sendable {
    let service: AdminService

    /// `GET /admin/users?query=&cursor=&limit=`, or `GET /admin/users?externalId=` for the one account with that id
    /// (`{"users": [user], "nextCursor": null}`, no user when none has it).
    func searchUsers(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        if let externalID = request.queryValue("externalId") {
            return JSONBody.ok(try service.searchUsers(externalID: externalID))
        }
        let limit = try request.queryValue("limit").map { (text: String) throws(ServerError) -> Int in
            guard let limit = Int(text) else { throw ServerError(.invalidRequest, member: "limit") }
            return limit
        }
        let page = try service.searchUsers(
            query: request.queryValue("query") ?? "",
            cursor: request.queryValue("cursor"),
            limit: limit
        )
        return JSONBody.ok(page)
    }

    /// `GET /admin/users/{id}`.
    func user(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        JSONBody.ok(try service.user(id: context.identifier))
    }

    /// `POST /admin/users` `{"username", "displayName"?, "email"?, "emailVerified"?, "externalId"?}`: 201
    /// `{"user", "created": true}`, or 200 `{"user", "created": false}` with the account that has `externalId` already.
    func createUser(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let change = try JSONBody.decode(AdminUserChange.self, from: request)
        let answer = try service.createUser(change)
        return JSONBody.ok(answer, status: answer.created ? 201 : 200)
    }

    /// `PATCH /admin/users/{id}` `{"username"?, "displayName"?, "email"?, "emailVerified"?}`.
    func updateUser(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let change = try JSONBody.decode(AdminUserChange.self, from: request)
        return JSONBody.ok(["user": try service.updateUser(id: context.identifier, change)])
    }

    /// `DELETE /admin/users/{id}`: `{"deleted": true, "appleRevocation"?}`.
    func deleteUser(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let revocation = try service.deleteUser(id: context.identifier)
        return JSONBody.ok(AccountController.DeletedAnswer(appleRevocation: revocation))
    }

    /// `POST /admin/users/{id}/sessions/revoke`.
    func revokeSessions(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        JSONBody.ok(["revoked": try service.revokeSessions(userID: context.identifier)])
    }

    /// `POST /admin/users/{id}/merge` `{"from"}`: `{"user"}`, the survivor.
    func mergeUsers(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let body = try JSONBody.decode(AdminMergeRequest.self, from: request)
        return JSONBody.ok(["user": try service.mergeUsers(into: context.identifier, from: body.from)])
    }

    /// `DELETE /admin/users/{id}/passkeys/{credentialId}`.
    func deletePasskey(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        try service.deletePasskey(userID: context.identifier, credentialID: context.parameters.last ?? "")
        return JSONBody.ok(["deleted": true])
    }

    /// `POST /admin/users/{id}/enrollment-links`: 201 `{"url", "expiresAt"}`.
    func createEnrollmentLink(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let send = request.body.isEmpty ? false : try JSONBody.decode(EnrollmentLinkRequest.self, from: request).send ?? false
        return JSONBody.ok(try service.createEnrollmentLink(userID: context.identifier, send: send), status: 201)
    }

    /// `GET /admin/export`: NDJSON (`AdminExport`).
    func export(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: HTTPHeaders([
                ("Content-Type", "application/x-ndjson"), ("Content-Disposition", "attachment; filename=\"passkeyd-export.ndjson\""),
            ]),
            body: try service.export()
        )
    }

    /// `POST /admin/import`: an export as `application/x-ndjson`; with `?format=firebase` a `firebase auth:export`
    /// file as `application/json`; with `?format=supabase` the JSON of `auth.users`; with `?format=auth0` Auth0's
    /// export (JSON or NDJSON).
    func importUsers(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let contentType = request.headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        switch request.queryValue("format") {
        case nil:
            guard contentType == "application/x-ndjson" else { throw ServerError(.unsupportedMediaType) }
            return JSONBody.ok(try service.importFile(request.body, format: .export))
        case "firebase":
            guard contentType == "application/json" else { throw ServerError(.unsupportedMediaType) }
            // The project's password hash parameters, named as the Firebase console shows them.
            let parameters = try ServerError.importing { () throws(UserImportError) -> FirebaseHashParameters? in
                try FirebaseHashParameters.given(
                    signerKey: request.queryValue("base64_signer_key"),
                    saltSeparator: request.queryValue("base64_salt_separator"),
                    rounds: request.queryValue("rounds"),
                    memoryCost: request.queryValue("mem_cost")
                )
            }
            return JSONBody.ok(try service.importFile(request.body, format: .firebase(parameters)))
        case "supabase":
            guard contentType == "application/json" else { throw ServerError(.unsupportedMediaType) }
            return JSONBody.ok(try service.importFile(request.body, format: .supabase))
        case "auth0":
            guard contentType == "application/json" || contentType == "application/x-ndjson" else { throw ServerError(.unsupportedMediaType) }
            return JSONBody.ok(try service.importFile(request.body, format: .auth0))
        default:
            throw ServerError(.invalidRequest, member: "format")
        }
    }

    /// `GET /admin/webhooks/deliveries?status=&cursor=&limit=`.
    func webhookDeliveries(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let limit = try request.queryValue("limit").map { (text: String) throws(ServerError) -> Int in
            guard let limit = Int(text) else { throw ServerError(.invalidRequest, member: "limit") }
            return limit
        }
        let page = try service.webhookDeliveries(
            status: request.queryValue("status"),
            cursor: request.queryValue("cursor"),
            limit: limit
        )
        return JSONBody.ok(page)
    }

    /// `POST /admin/webhooks/deliveries/{id}/retry`.
    func retryWebhookDelivery(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        try service.retryWebhookDelivery(id: context.identifier)
        return JSONBody.ok(["queued": true])
    }

    /// `GET /admin/mail?status=&cursor=&limit=`: the mail outbox, without bodies.
    func mailMessages(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let limit = try request.queryValue("limit").map { (text: String) throws(ServerError) -> Int in
            guard let limit = Int(text) else { throw ServerError(.invalidRequest, member: "limit") }
            return limit
        }
        return JSONBody.ok(try service.mailMessages(status: request.queryValue("status"), cursor: request.queryValue("cursor"), limit: limit))
    }

    /// `GET /admin/mail/suppressions?cursor=&limit=`.
    func mailSuppressions(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let limit = try request.queryValue("limit").map { (text: String) throws(ServerError) -> Int in
            guard let limit = Int(text) else { throw ServerError(.invalidRequest, member: "limit") }
            return limit
        }
        return JSONBody.ok(try service.mailSuppressions(cursor: request.queryValue("cursor"), limit: limit))
    }

    /// `DELETE /admin/mail/suppressions/{address}`: the suppression lifted.
    func clearMailSuppression(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let address = context.identifier.removingPercentEncoding ?? context.identifier
        return JSONBody.ok(["suppression": try service.clearMailSuppression(address: address)])
    }
}
