import JSON
import OutboundHTTP

/// Typed access to one object of the configuration, with errors naming the full key.
public struct ConfigurationReader: Sendable {
    public let members: [String: JSONValue]
    public let path: String

    public init(_ value: JSONValue, path: String) throws(ConfigurationError) {
        guard let members = value.objectValue else { throw ConfigurationError(.invalidValue, key: path, "must be an object") }
        self.members = members
        self.path = path
    }

    public func key(_ name: String) -> String { path.isEmpty ? name : path + "." + name }

    public func has(_ name: String) -> Bool { members[name] != nil }

    public func only(_ allowed: Set<String>) throws(ConfigurationError) {
        for name in members.keys.sorted() where !allowed.contains(name) {
            throw ConfigurationError(.unknownKey, key: key(name), "is not a configuration key (known: \(allowed.sorted().joined(separator: ", ")))")
        }
    }

    /// A URL passkeyd fetches or posts to: https://, or http:// to a loopback address (the outbound client's own rule,
    /// checked here so that a refused URL stops start-up with its key named).
    public func outboundURL(_ name: String) throws(ConfigurationError) -> String? {
        guard let url = try string(name) else { return nil }
        do throws(HTTPClientError) {
            try HTTPClient.validate(url: url)
        } catch {
            throw ConfigurationError(.invalidValue, key: key(name), "must be an https:// URL (http:// only to a loopback address): \(error.reason)")
        }
        return url
    }

    public func object(_ name: String) throws(ConfigurationError) -> ConfigurationReader? {
        guard let value = members[name], value != .null else { return nil }
        return try ConfigurationReader(value, path: key(name))
    }

    public func string(_ name: String) throws(ConfigurationError) -> String? {
        guard let value = members[name], value != .null else { return nil }
        guard let text = value.stringValue, !text.isEmpty else {
            throw ConfigurationError(.invalidValue, key: key(name), "must be a non-empty string")
        }
        return text
    }

    /// A non-empty string that must be present.
    public func requiredString(_ name: String) throws(ConfigurationError) -> String {
        guard let value = try string(name) else { throw ConfigurationError(.missingValue, key: key(name), "is required") }
        return value
    }

    public func strings(_ name: String) throws(ConfigurationError) -> [String]? {
        guard let value = members[name], value != .null else { return nil }
        guard let items = value.arrayValue else { throw ConfigurationError(.invalidValue, key: key(name), "must be a list of strings") }
        var texts: [String] = []
        for item in items {
            guard let text = item.stringValue, !text.isEmpty else {
                throw ConfigurationError(.invalidValue, key: key(name), "must be a list of non-empty strings")
            }
            texts.append(text)
        }
        return texts
    }

    public func integer(_ name: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let value = members[name], value != .null else { return nil }
        guard let number = value.integerValue, range.contains(number) else {
            throw ConfigurationError(.invalidValue, key: key(name), "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    public func value(_ name: String) -> JSONValue? { members[name] }

    /// A list of any values (each checked by the caller, who names it `key(name) + "[index]"`).
    public func list(_ name: String) throws(ConfigurationError) -> [JSONValue]? {
        guard let value = members[name], value != .null else { return nil }
        guard let items = value.arrayValue else { throw ConfigurationError(.invalidValue, key: key(name), "must be a list") }
        return items
    }

    /// Every item of a list, as an object, with its key (`details[2]`).
    public func objects(_ name: String) throws(ConfigurationError) -> [ConfigurationReader]? {
        guard let items = try list(name) else { return nil }
        var readers: [ConfigurationReader] = []
        for (index, item) in items.enumerated() { readers.append(try ConfigurationReader(item, path: key(name) + "[\(index)]")) }
        return readers
    }

    public func bool(_ name: String) throws(ConfigurationError) -> Bool? {
        guard let value = members[name], value != .null else { return nil }
        guard let flag = value.boolValue else { throw ConfigurationError(.invalidValue, key: key(name), "must be true or false") }
        return flag
    }
}
