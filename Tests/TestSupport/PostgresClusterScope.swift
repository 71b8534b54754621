import Testing

/// A suite trait that starts one throwaway `PostgresCluster` around the whole suite and destroys it afterwards,
/// however the suite ends. Tests reach it through `PostgresClusterScope.cluster`.
public struct PostgresClusterScope: SuiteTrait, TestScoping {
    @TaskLocal public static var cluster: PostgresCluster?

    public init() {}

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let cluster = try PostgresCluster()
        defer { cluster.destroy() }
        try await Self.$cluster.withValue(cluster, operation: function)
    }

    /// The suite's cluster; fails the test when it runs outside a suite with this trait.
    public static func current() throws -> PostgresCluster {
        guard let cluster else { throw PostgresClusterFailure("the suite needs the PostgresClusterScope() trait") }
        return cluster
    }
}
