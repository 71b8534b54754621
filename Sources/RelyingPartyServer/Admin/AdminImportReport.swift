/// What `POST /admin/import` and `passkeyd admin import` did: per kind of record, how many were created, updated and
/// found unchanged (a second import of the same file changes nothing); for a Firebase file also the accounts skipped
/// and why (`providers`: the sign-in providers of the accounts without Sign in with Apple, by count).
public struct AdminImportReport: Encodable, Sendable, Equatable {
    public struct Counts: Encodable, Sendable, Equatable {
        public var created = 0
        public var updated = 0
        public var unchanged = 0
    }

    /// The accounts of a Firebase file that were not imported.
    public struct Skipped: Encodable, Sendable, Equatable {
        public var count = 0
        /// Accounts without an `apple.com` or `google.com` provider, by their providers joined with "+" ("password";
        /// "none" for an account without any).
        public var providers: [String: Int] = [:]
        /// Disabled accounts (`disabled: true`), imported by none.
        public var disabled = 0
    }

    public var users = Counts()
    public var passkeys = Counts()
    public var appleIdentities = Counts()
    /// Imported password hashes (a hash equal to the stored one is unchanged).
    public var passwords = Counts()
    /// Identities at OpenID providers (`identity` lines).
    public var identities = Counts()
    /// Only for a Firebase import.
    public var skipped: Skipped?
}
