import Storage

/// A broken clause of the store contract, thrown by `StoreContract` checks.
public struct StoreContractFailure: Error, CustomStringConvertible {
    /// What was expected and what happened.
    public let message: String
    /// Where the expectation was written.
    public let file: String
    public let line: UInt

    public var description: String { "\(file):\(line): \(message)" }
}

/// Fails the running contract check unless `condition` holds.
func expect(
    _ condition: Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #filePath,
    line: UInt = #line
) throws(StoreContractFailure) {
    guard condition else {
        throw StoreContractFailure(message: message(), file: "\(file)", line: line)
    }
}

/// Fails the running contract check unless `actual == expected`.
func expectEqual<Value: Equatable>(
    _ actual: Value,
    _ expected: Value,
    _ what: String,
    file: StaticString = #filePath,
    line: UInt = #line
) throws(StoreContractFailure) {
    try expect(actual == expected, "\(what): expected \(expected), got \(actual)", file: file, line: line)
}

/// Fails the running contract check unless `body` throws a `StorageError` with `code`.
func expectStorageError(
    _ code: StorageError.Code,
    _ what: String,
    file: StaticString = #filePath,
    line: UInt = #line,
    _ body: () throws(StorageError) -> Void
) throws(StoreContractFailure) {
    do {
        try body()
    } catch {
        try expectEqual(error.code, code, what, file: file, line: line)
        return
    }
    throw StoreContractFailure(message: "\(what): expected \(code), nothing was thrown", file: "\(file)", line: line)
}
