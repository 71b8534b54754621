import Confusables
import Foundation
import HTTPEdge
import Storage

extension RelyingPartyServer {
    /// The longest username, display name or passkey name, in UTF-8 bytes after normalisation: what every authenticator
    /// must store (WebAuthn L3 §5.4.1, at least 64 bytes of `name` and `displayName`), so that no one is cut short.
    static let maximumNameBytes = 64

    /// The longest username a sign-in may name, in UTF-8 bytes: longer than any username ever registered (64
    /// characters of up to four bytes before names were limited in bytes), so that nothing longer reaches the store or
    /// a table.
    static let maximumLookupNameBytes = 256

    /// A username, display name or passkey name as given by a client: NFKC-normalised (so that `ｆｒａｎｋ` is
    /// `frank` and a composed `é` is one form), trimmed, 1 to `maximumNameBytes` UTF-8 bytes, without control, format
    /// (bidi overrides and isolates, zero-width characters), line or paragraph separator, surrogate or private-use
    /// characters, which could make a name display as another.
    static func validName(_ value: String?, member: String) throws(ServerError) -> String {
        let normalized = normalizedName(value ?? "")
        let refused: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse]
        guard !normalized.isEmpty, normalized.utf8.count <= maximumNameBytes,
            !normalized.unicodeScalars.contains(where: { refused.contains($0.properties.generalCategory) })
        else {
            // Only documented codes: invalid_username for the username, invalid_request for any other name.
            throw ServerError(member == "username" ? .invalidUsername : .invalidRequest, member: member)
        }
        return normalized
    }

    /// A username a person or an administrator chooses for a new or renamed account: `validName`, and neither mixing
    /// scripts (Unicode TS #39 §5.2 beyond Highly Restrictive, `400 username_mixed_scripts`: `pаypal` with a Cyrillic
    /// `а`) nor confusable with another account's (`409 username_confusable`: equal skeletons, `раураl` in Cyrillic
    /// beside `paypal`). `owner` is the account being renamed, whose own name does not count. Imports keep the names
    /// people already have.
    static func validNewUsername(_ value: String?, owner: [UInt8]? = nil, store: any PasskeyStore) throws(ServerError) -> String {
        let username = try validName(value, member: "username")
        guard !ConfusableSkeleton.mixesScripts(username) else { throw ServerError(.usernameMixedScripts, member: "username") }
        let key = UserRecord.nameKey(of: username)
        // A read (a reader connection on SQLite), not a transaction: registration options never wait for the writer.
        let lookAlike = try storage { try store.user(nameSkeleton: UserRecord.nameSkeleton(of: username)) }
        if let lookAlike, lookAlike.id != owner, lookAlike.nameKey != key { throw ServerError(.usernameConfusable, member: "username") }
        return username
    }

    /// A name in the form it is stored and shown in: NFKC, surrounding white space removed. Usernames are compared in
    /// their key (`UserRecord.nameKey`: this, lowercased), which every store looks them up by.
    static func normalizedName(_ value: String) -> String {
        value.precomposedStringWithCompatibilityMapping.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
