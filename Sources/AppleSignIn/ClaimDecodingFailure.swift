/// Describes a claims decoding failure by the claim it concerns, never by its value.
enum ClaimDecodingFailure {
    static func describe(_ error: any Error) -> String {
        guard let decodingError = error as? DecodingError else { return "not JSON" }
        switch decodingError {
        case .keyNotFound(let key, let context):
            return "missing \((context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: "."))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "bad \(context.codingPath.map(\.stringValue).joined(separator: ".")) (\(context.debugDescription))"
        @unknown default:
            return "undecodable"
        }
    }
}
