/// The optional body of `POST /admin/users/{id}/enrollment-links`: `{"send": true}` has passkeyd mail the link to the
/// account's verified address (the `enrollment` message of `email`) as well as answer it.
struct EnrollmentLinkRequest: Decodable, Sendable {
    let send: Bool?
}
