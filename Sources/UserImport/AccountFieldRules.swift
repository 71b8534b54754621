import JSON

/// The rules an account's fields meet, the same for an import's records as for the admin API's calls: the server's
/// (its name normalisation, its email and external ID bounds, its metadata limits). A reader applies them to each line
/// in the file's order, so that the first refused field of the file is the one reported.
public protocol AccountFieldRules: Sendable {
    /// A username, display name or passkey name as stored, or nil when refused.
    func name(_ value: String) -> String?
    /// An email address as stored ("" for a blank one, which clears it), or nil when refused.
    func email(_ value: String) -> String?
    /// An external ID as stored, or nil when refused.
    func externalID(_ value: String) -> String?
    /// The stored text of the app's metadata (nil inside for `{}`, which removes it), or nil when refused.
    func metadata(_ value: JSONValue) -> String??
}
