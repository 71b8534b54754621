import Foundation

/// A value bound to a statement parameter.
enum SQLiteValue {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}

extension SQLiteValue {
    /// A time as REAL seconds since Foundation's reference date, which round-trips `Date` exactly.
    static func date(_ date: Date) -> SQLiteValue {
        .real(date.timeIntervalSinceReferenceDate)
    }

    /// A Boolean as INTEGER 0 or 1.
    static func bool(_ value: Bool) -> SQLiteValue {
        .integer(value ? 1 : 0)
    }
}
