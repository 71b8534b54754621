/// Why a throwaway cluster could not be made or driven.
public struct PostgresClusterFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
