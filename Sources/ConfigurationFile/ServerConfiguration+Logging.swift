import ConfigurationReading
import Observability

extension ServerConfiguration {
    /// The `log` block: `format` (`"text"` or `"json"`; by default text on a terminal, JSON otherwise) and `level`
    /// (`debug`, `info`, `warning`, `error`).
    package mutating func parseLog(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["format", "level"])
        if let name = try block.string("format") {
            guard let format = LogFormat(rawValue: name) else {
                throw ConfigurationError(.invalidValue, key: block.key("format"), "must be \"text\" or \"json\"")
            }
            logFormat = format
        }
        if let name = try block.string("level") {
            guard let level = LogLevel(name: name) else {
                throw ConfigurationError(.invalidValue, key: block.key("level"), "must be one of: debug, info, warning, error")
            }
            logLevel = level
        }
    }

    /// The `node` block: `name`, which every log line carries (default: the host name); 1 to 64 characters
    /// of letters, digits, `.`, `_` and `-`.
    package mutating func parseNode(_ block: ConfigurationReader) throws(ConfigurationError) {
        try block.only(["name"])
        guard let name = try block.string("name") else { return }
        guard (1...64).contains(name.utf8.count), name.unicodeScalars.allSatisfy(Self.isNodeNameCharacter) else {
            throw ConfigurationError(.invalidValue, key: block.key("name"), "must be 1 to 64 characters of letters, digits, '.', '_' and '-'")
        }
        nodeName = name
    }

    private static func isNodeNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "_" || scalar == "-")
    }
}
