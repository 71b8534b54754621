import ConfigurationReading

extension ServerConfiguration {
    /// The `database` block: `sqlite` (a file) or `postgres` (a libpq connection string, with `poolSize`, `pooler`
    /// and `listen`).
    package mutating func parseDatabase(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["sqlite", "postgres", "poolSize", "pooler", "listen"])
        sqlitePath = try block.string("sqlite")
        postgresConnectionString = try block.string("postgres")
        postgresPoolSize = try block.integer("poolSize", in: 1...1000)
        if sqlitePath != nil, postgresConnectionString != nil {
            throw ConfigurationError(.invalidValue, key: "database", "choose sqlite or postgres, not both")
        }
        if postgresConnectionString?.isEmpty == true {
            throw ConfigurationError(
                .invalidValue,
                key: "database.postgres",
                "must be a libpq connection string such as \"host=db.internal dbname=passkeyd user=passkeyd\""
            )
        }
        if postgresPoolSize != nil, postgresConnectionString == nil {
            throw ConfigurationError(.invalidValue, key: "database.poolSize", "applies to database.postgres only")
        }
        postgresListenConnectionString = try block.string("listen")
        if let listen = postgresListenConnectionString, postgresConnectionString == nil || listen.isEmpty {
            throw ConfigurationError(
                .invalidValue,
                key: "database.listen",
                "must be a libpq connection string reaching PostgreSQL directly or in session mode, next to database.postgres"
            )
        }
        if let pooler = try block.string("pooler") {
            guard postgresConnectionString != nil else {
                throw ConfigurationError(.invalidValue, key: "database.pooler", "applies to database.postgres only")
            }
            switch pooler {
            case "none", "session": postgresTransactionPooling = false
            case "transaction": postgresTransactionPooling = true
            default:
                throw ConfigurationError(
                    .invalidValue,
                    key: "database.pooler",
                    "must be \"none\", \"session\" or \"transaction\" (PgBouncer's pool_mode in front of PostgreSQL)"
                )
            }
        }
    }
}
