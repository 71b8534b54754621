/// What `POST /admin/import` and `passkeyd admin import` did: per kind of record, how many were created, updated and
/// found unchanged (a second import of the same file changes nothing); for a file of another system also the accounts skipped
/// and why (`providers`: the sign-in providers of the accounts without Sign in with Apple, by count).
public struct AdminImportReport: Encodable, Sendable, Equatable {
    public struct Counts: Encodable, Sendable, Equatable {
        public var created = 0
        public var updated = 0
        public var unchanged = 0

        /// Every record counted, whatever became of it.
        public var total: Int { created + updated + unchanged }

        mutating func add(_ other: Counts) {
            (created, updated, unchanged) = (created + other.created, updated + other.updated, unchanged + other.unchanged)
        }
    }

    /// The accounts of a Firebase file that were not imported.
    public struct Skipped: Encodable, Sendable, Equatable {
        public var count = 0
        /// Accounts without an `apple.com` or `google.com` provider, by their providers joined with "+" ("password";
        /// "none" for an account without any).
        public var providers: [String: Int] = [:]
        /// Disabled accounts (`disabled: true`), imported by none.
        public var disabled = 0

        /// The most distinct keys of `providers` (read from the file): further combinations count as "other".
        static let maximumProviderKeys = 32

        /// Counts a skipped account under its providers (their IDs sorted, joined with "+", bounded).
        mutating func count(providers: [String]) {
            let key = providers.isEmpty ? "none" : providers.sorted().joined(separator: "+")
            let known = key.utf8.count <= 128 && (self.providers[key] != nil || self.providers.count < Self.maximumProviderKeys)
            self.providers[known ? key : "other", default: 0] += 1
        }
    }

    public var users = Counts()
    public var passkeys = Counts()
    public var appleIdentities = Counts()
    /// Imported password hashes (a hash equal to the stored one is unchanged).
    public var passwords = Counts()
    /// Identities at OpenID providers (`identity` lines).
    public var identities = Counts()
    /// Only for an import from another system (Firebase, Supabase, Auth0).
    public var skipped: Skipped?

    /// Adds what a batch of the same import did (the skipped accounts are counted by the import).
    mutating func add(_ batch: AdminImportReport) {
        users.add(batch.users)
        passkeys.add(batch.passkeys)
        appleIdentities.add(batch.appleIdentities)
        passwords.add(batch.passwords)
        identities.add(batch.identities)
    }
}
