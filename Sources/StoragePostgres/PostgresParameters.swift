/// The parameters of one statement being composed (such as a ceremony's data-modifying CTEs): each bound value gets
/// the next placeholder, written with a cast so that the server knows its type even when the value is NULL and the
/// placeholder stands in a `SELECT` or `VALUES` list.
struct PostgresParameters {
    private(set) var values: [PostgresValue] = []
    /// Whether placeholders carry their cast. A function's arguments need none: each non-NULL value's type goes with
    /// the statement (`PostgresValue.typeOID`), and a NULL's is the argument's. Without the casts a call's text is
    /// shorter to parse and analyse, which a transaction-mode pooler makes PostgreSQL do on every call (a sign-in's
    /// parsing, analysis and planning: 101 → 73 µs, bench/runs/2026-12-07-nodes-after.md).
    private let castsPlaceholders: Bool

    init(castsPlaceholders: Bool = true) {
        self.castsPlaceholders = castsPlaceholders
    }

    /// Binds `value` and returns its placeholder, such as `$3::bytea` (`$3` without casts).
    mutating func bind(_ value: PostgresValue, as type: String) -> String {
        values.append(value)
        return castsPlaceholders ? "$\(values.count)::\(type)" : "$\(values.count)"
    }

    /// Binds a row of typed values and returns their placeholders, comma-separated.
    mutating func bind(_ row: [(PostgresValue, String)]) -> String {
        row.map { bind($0.0, as: $0.1) }.joined(separator: ", ")
    }
}
