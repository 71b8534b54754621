import Foundation

/// A store put back from a backup (`passkeyd restore`). What the backup holds may have been revoked after it was
/// taken (a sign-out, a session ended by its owner or an admin, a refresh token rotated, an enrollment link used), and
/// the store cannot tell which: so the restore ends all of it.
public protocol RestorableStore: Sendable {
    /// Ends, in one transaction, every grant the backup holds that may have been revoked after it was taken: every
    /// session (appending `event(session)` for each live one, in the same transaction), every OpenID grant with its
    /// refresh tokens, every authorization code not yet used, every enrollment link, and every challenge not yet
    /// spent (sign-in and registration challenges, merge tokens, hand-off codes, web states). Spent challenges and used
    /// authorization codes stay, so that none of those is accepted twice. `now` tells live sessions from expired ones.
    func endGrantsAfterRestore(now: Date, event: (SessionRecord) -> NewEvent) throws(StorageError) -> RestoreRevocations
}
