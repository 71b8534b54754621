import Foundation

/// `merge_conflict`'s two accounts: what the person needs to choose which to keep, nothing that names either.
public struct MergeConflictAccounts: Codable, Sendable, Equatable {
    public struct Summary: Codable, Sendable, Equatable {
        public let createdAt: Date
        public let lastSignInAt: Date?
        /// How many passkeys the account has.
        public let passkeys: Int
        public let appleLinked: Bool
    }

    /// The signed-in account.
    public let current: Summary
    /// The account the proof names.
    public let other: Summary
}
