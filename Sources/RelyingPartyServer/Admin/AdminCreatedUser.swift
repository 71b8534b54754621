/// The answer of `POST /admin/users`: the account, and whether this request created it (false when an account had the
/// `externalId` already: the request is idempotent by it).
public struct AdminCreatedUser: Encodable, Sendable {
    public let user: UserJSON
    public let created: Bool
}
