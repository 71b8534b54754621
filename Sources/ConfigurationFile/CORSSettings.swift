import ConfigurationReading

/// The `cors` block: the other origins whose pages may call the JSON API with credentials.
public struct CORSSettings: Sendable, Equatable {
    /// Origins answered with CORS headers; nil takes the relying party's `https` origins
    /// (`ServerConfiguration.corsAllowedOrigins`). Never `*`: credentials are allowed.
    public var allowedOrigins: [String]?

    public init() {}

    package init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(["allowedOrigins"])
        if let origins = try reader.strings("allowedOrigins") {
            for origin in origins {
                guard origin != "*" else {
                    throw ConfigurationError(
                        .invalidValue,
                        key: reader.key("allowedOrigins"),
                        "* is refused: the API answers with credentials, so list each origin"
                    )
                }
                guard !origin.hasPrefix("android:"), ServerConfiguration.isOrigin(origin) else {
                    throw ConfigurationError(
                        .invalidValue,
                        key: reader.key("allowedOrigins"),
                        "\(origin) is not an https:// origin (scheme, host and port only; http:// only for localhost)"
                    )
                }
            }
            allowedOrigins = origins
        }
    }
}
