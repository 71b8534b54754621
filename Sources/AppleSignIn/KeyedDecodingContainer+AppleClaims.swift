import Foundation

/// Decoding of the claim shapes Apple uses, shared by identity tokens and server notifications.
extension KeyedDecodingContainer {
    /// A boolean claim that Apple sends either as a JSON boolean or as the string "true" or "false".
    func decodeAppleBooleanIfPresent(forKey key: Key) throws -> Bool? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let value = try? decode(Bool.self, forKey: key) { return value }
        switch try decode(String.self, forKey: key) {
        case "true": return true
        case "false": return false
        default: throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not true or false")
        }
    }

    /// `aud` (RFC 7519 §4.1.3): one string or an array of strings; always returned as an array.
    func decodeAudience(forKey key: Key) throws -> [String] {
        if let single = try? decode(String.self, forKey: key) { return [single] }
        return try decode([String].self, forKey: key)
    }

    /// A NumericDate claim (RFC 7519 §2): seconds since the epoch, integral or not, and finite.
    func decodeNumericDate(forKey key: Key) throws -> Date {
        let seconds = try decode(Double.self, forKey: key)
        guard seconds.isFinite else { throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not finite") }
        return Date(timeIntervalSince1970: seconds)
    }

    /// An optional NumericDate claim.
    func decodeNumericDateIfPresent(forKey key: Key) throws -> Date? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeNumericDate(forKey: key)
    }
}
