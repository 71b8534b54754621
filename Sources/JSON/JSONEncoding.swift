import Foundation

/// An `Encodable` value as JSON bytes, the one way passkeyd writes them with Foundation's encoder: keys sorted (equal
/// values give equal bytes, so a hash of them is a stable `ETag`), `/` not escaped, dates in ISO 8601. The server's
/// bodies (`JSONBody.encode`), the well-known files and `check-domain --json` are written through it.
public enum JSONEncoding {
    public static func encode<Value: Encodable>(_ value: Value) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }
}
