import Storage

/// Makes a fresh, empty store; a check may call it several times.
public typealias StoreFactory = () throws -> any PasskeyStore

/// One named clause of the store contract, runnable against any driver.
public struct StoreContractCheck: Sendable, CustomStringConvertible {
    /// The clause, used as the test argument's name.
    public let name: String
    /// Runs the clause; throws `StoreContractFailure` or the store's error when the driver breaks it.
    public let run: @Sendable (_ makeStore: StoreFactory) throws -> Void

    public var description: String { name }
}
