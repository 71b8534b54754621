/// The parameters of one statement being composed (such as a ceremony's data-modifying CTEs): each bound value gets
/// the next placeholder, written with a cast so that the server knows its type even when the value is NULL and the
/// placeholder stands in a `SELECT` or `VALUES` list.
struct PostgresParameters {
    private(set) var values: [PostgresValue] = []

    /// Binds `value` and returns its placeholder, such as `$3::bytea`.
    mutating func bind(_ value: PostgresValue, as type: String) -> String {
        values.append(value)
        return "$\(values.count)::\(type)"
    }

    /// Binds a row of typed values and returns their placeholders, comma-separated.
    mutating func bind(_ row: [(PostgresValue, String)]) -> String {
        row.map { bind($0.0, as: $0.1) }.joined(separator: ", ")
    }
}
