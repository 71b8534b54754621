/// One page of `GET /admin/users`: the matches and, when there are more, the cursor of the next page.
public struct AdminUserPage: Encodable, Sendable {
    /// An account and the field the query matched (`email`, `externalId`, `appleUserId`, `credentialId`,
    /// `username`).
    public struct Match: Encodable, Sendable {
        public let user: UserJSON
        public let matchedBy: String
    }

    public let users: [Match]
    /// Absent on the last page.
    public let nextCursor: String?
}
