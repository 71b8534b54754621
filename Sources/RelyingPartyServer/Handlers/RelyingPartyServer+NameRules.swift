import Foundation

extension RelyingPartyServer {
    /// The longest username a sign-in may name, in UTF-8 bytes: longer than any username ever registered (64
    /// characters of up to four bytes), so that nothing longer reaches the store or a table.
    static let maximumLookupNameBytes = 256

    /// A username or display name as given by a client: trimmed, 1 to 64 characters, no control characters.
    static func validName(_ value: String?, member: String) throws(ServerError) -> String {
        let trimmed = (value ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 64, !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            // Only documented codes: invalid_username for the username, invalid_request for any other name.
            throw ServerError(member == "username" ? .invalidUsername : .invalidRequest, member: member)
        }
        return trimmed
    }
}
