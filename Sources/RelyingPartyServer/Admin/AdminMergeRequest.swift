/// The body of `POST /admin/users/{id}/merge`.
struct AdminMergeRequest: Decodable, Sendable {
    /// The account merged into `{id}` and deleted.
    let from: String
}
