import Foundation

extension JSONDecoder {
    /// passkeyd's JSON: dates in ISO 8601 (`2025-01-31T12:00:00Z`).
    static var passkeyd: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

extension JSONEncoder {
    /// Request bodies, as passkeyd reads them.
    static var passkeyd: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
