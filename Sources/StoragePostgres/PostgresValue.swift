import Foundation

/// A statement parameter, sent to the server in binary format with its type.
enum PostgresValue {
    case bigint(Int64)
    case double(Double)
    case boolean(Bool)
    case text(String)
    case bytea([UInt8])
    /// A one-dimensional array of `element`s (a type OID), each in binary format or nil for NULL.
    case array(element: UInt32, [[UInt8]?])
    /// A composite value: each field's declared type OID (which must be the composite type's column's, NULL or not) and
    /// its value. Its own type is the server's to infer from where the placeholder stands, such as a function's argument.
    case record([(type: UInt32, value: PostgresValue)])
    case null

    /// The parameter's type OID (pg_type); 0 lets the server infer it, which it does for NULL from the context.
    var typeOID: UInt32 {
        switch self {
        case .boolean: 16
        case .bytea: 17
        case .bigint: 20
        case .text: 25
        case .double: 701
        case .array(let element, _): Self.arrayTypes[element] ?? 0
        case .record, .null: 0
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
        case .array(let element, let elements): Self.arrayBinary(element: element, elements)
        case .record(let fields): Self.recordBinary(fields)
        case .null: nil
        }
    }

    /// The OIDs of the types that values are declared with in this module's statements (pg_type), by the name used in
    /// their casts; 0 (which the server refuses in a record) for any other.
    private static func typeOID(named name: String) -> UInt32 {
        switch name {
        case "boolean": 16
        case "bytea": 17
        case "int8": 20
        case "text": 25
        case "float8": 701
        case "bytea[]": 1001
        case "text[]": 1009
        case "float8[]": 1022
        default: 0
        }
    }

    /// A record of `values` declared as the types named beside them (`typeOID(named:)`).
    static func record(typed values: [(PostgresValue, String)]) -> PostgresValue {
        .record(values.map { (type: typeOID(named: $0.1), value: $0.0) })
    }

    /// The array type of each element type an array parameter may have: text, bytea, bigint, double precision.
    private static let arrayTypes: [UInt32: UInt32] = [25: 1009, 17: 1001, 20: 1016, 701: 1022]

    /// PostgreSQL's binary array format (`array_recv`): the dimensions (one, or none when empty), whether an element
    /// is NULL, the element type, the length and lower bound (1), then each element's length (-1: NULL) and bytes.
    private static func arrayBinary(element: UInt32, _ elements: [[UInt8]?]) -> [UInt8] {
        var bytes: [UInt8] = []
        append(elements.isEmpty ? 0 : 1, to: &bytes)
        append(elements.contains(nil) ? 1 : 0, to: &bytes)
        append(Int32(bitPattern: element), to: &bytes)
        guard !elements.isEmpty else { return bytes }
        append(Int32(elements.count), to: &bytes)
        append(1, to: &bytes)
        for element in elements {
            append(element.map { Int32($0.count) } ?? -1, to: &bytes)
            bytes.append(contentsOf: element ?? [])
        }
        return bytes
    }

    /// Appends `integer` in network byte order.
    private static func append(_ integer: Int32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: integer.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// PostgreSQL's binary record format (`record_recv`): the number of fields, then each field's type OID, its length
    /// (-1: NULL) and its bytes.
    private static func recordBinary(_ fields: [(type: UInt32, value: PostgresValue)]) -> [UInt8] {
        var bytes: [UInt8] = []
        append(Int32(fields.count), to: &bytes)
        for field in fields {
            append(Int32(bitPattern: field.type), to: &bytes)
            let value = field.value.binary
            append(value.map { Int32($0.count) } ?? -1, to: &bytes)
            bytes.append(contentsOf: value ?? [])
        }
        return bytes
    }
}

extension PostgresValue {
    /// A time as double precision seconds since Foundation's reference date, which round-trips `Date` exactly.
    static func date(_ date: Date) -> PostgresValue {
        .double(date.timeIntervalSinceReferenceDate)
    }

    /// An array of `values` made by `make`, whose element type they all have (NULL elements are `.null`).
    static func array<Element>(_ values: [Element], of element: UInt32, _ make: (Element) -> PostgresValue) -> PostgresValue {
        .array(element: element, values.map { make($0).binary })
    }

    /// An optional value, NULL when absent.
    static func optional<Wrapped>(_ value: Wrapped?, _ make: (Wrapped) -> PostgresValue) -> PostgresValue {
        value.map(make) ?? .null
    }
}
