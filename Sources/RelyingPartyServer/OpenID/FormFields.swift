import Foundation

/// The fields of an `application/x-www-form-urlencoded` body or of a query string (`name=value` joined by `&`, a space
/// written `+`, percent-decoded), as OAuth reads them: a field given twice is refused (RFC 6749 §3.1, §3.2), an empty
/// value is no value (§3.1), and at most `maximumFields` fields of at most `maximumLength` bytes are read.
struct FormFields: Sendable {
    static let maximumFields = 32
    static let maximumLength = 4096

    private(set) var values: [String: String] = [:]
    /// The first field given more than once, or whose encoding is invalid, or past the bounds; nil when all are fine.
    private(set) var problem: String?

    init(_ encoded: String) {
        let pairs = encoded.split(separator: "&")
        guard pairs.count <= Self.maximumFields else {
            problem = "more than \(Self.maximumFields) fields"
            return
        }
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else {
                problem = problem ?? "a field name is not percent-encoded correctly"
                continue
            }
            guard let value = parts.count == 2 ? Self.decode(parts[1]) : "", value.utf8.count <= Self.maximumLength else {
                problem = problem ?? name
                continue
            }
            guard values[name] == nil else {
                problem = problem ?? name
                continue
            }
            if !value.isEmpty { values[name] = value }
        }
    }

    /// The fields of a form-encoded request body.
    init(body: [UInt8]) {
        self.init(String(decoding: body, as: UTF8.self))
    }

    subscript(name: String) -> String? { values[name] }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// `value` percent-encoded for a query string (RFC 3986 unreserved characters kept).
    static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
