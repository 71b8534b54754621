import Storage

extension UserRecord {
    /// The account with a display name or email it lacked: a name sent with Sign in with Apple replaces a default
    /// display name (Apple sends it once, and again after the person revoked and returned), an email fills an empty
    /// one. Nil when nothing changes.
    func filledIn(displayName: String?, email: String?, emailVerified: Bool?) -> (user: UserRecord, changes: [String])? {
        var updated = self
        var changes: [String] = []
        if let displayName, displayNameIsDefault {
            updated.displayName = displayName
            updated.displayNameIsDefault = false
            changes.append("displayName")
        }
        if self.email == nil, let email {
            updated.email = email
            updated.emailVerified = emailVerified == true
            changes.append("email")
        }
        return changes.isEmpty ? nil : (updated, changes)
    }
}
