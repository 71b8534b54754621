import Foundation

/// A statement parameter, sent to the server in binary format with its type.
enum PostgresValue {
    case bigint(Int64)
    case double(Double)
    case boolean(Bool)
    case text(String)
    case bytea([UInt8])
    case null

    /// The parameter's type OID (pg_type); 0 lets the server infer it, which it does for NULL from the context.
    var typeOID: UInt32 {
        switch self {
        case .boolean: 16
        case .bytea: 17
        case .bigint: 20
        case .text: 25
        case .double: 701
        case .null: 0
        }
    }

    /// The binary wire format of the value (network byte order), or nil for NULL.
    var binary: [UInt8]? {
        switch self {
        case .bigint(let integer): withUnsafeBytes(of: integer.bigEndian, Array.init)
        case .double(let real): withUnsafeBytes(of: real.bitPattern.bigEndian, Array.init)
        case .boolean(let value): [value ? 1 : 0]
        case .text(let text): Array(text.utf8)
        case .bytea(let bytes): bytes
        case .null: nil
        }
    }
}

extension PostgresValue {
    /// A time as double precision seconds since Foundation's reference date, which round-trips `Date` exactly.
    static func date(_ date: Date) -> PostgresValue {
        .double(date.timeIntervalSinceReferenceDate)
    }

    /// An optional value, NULL when absent.
    static func optional<Wrapped>(_ value: Wrapped?, _ make: (Wrapped) -> PostgresValue) -> PostgresValue {
        value.map(make) ?? .null
    }
}
