import ConfigurationReading
import CryptoCore
import JSON

/// One entry of the `backends` list: a backend of the app (its API) that may call `POST /introspect`, known by the
/// SHA-256 of its key (`passkeyd keys backend-key NAME` makes a key and the entry).
public struct BackendKey: Sendable, Equatable {
    /// For the log.
    public let name: String
    /// The SHA-256 of the key string, lowercase hex.
    public let keySHA256: String

    public static let maximumBackends = 64

    public init(name: String, keySHA256: String) {
        self.name = name
        self.keySHA256 = keySHA256
    }

    /// The `backends` list.
    public static func list(_ value: [JSONValue], key: String) throws(ConfigurationError) -> [BackendKey] {
        guard value.count <= maximumBackends else {
            throw ConfigurationError(.invalidValue, key: key, "must list at most \(maximumBackends) backends")
        }
        var backends: [BackendKey] = []
        for (index, item) in value.enumerated() {
            let reader = try ConfigurationReader(item, path: "\(key)[\(index)]")
            try reader.only(["name", "keySHA256"])
            let name = try reader.requiredString("name")
            guard name.utf8.count <= 64, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw ConfigurationError(.invalidValue, key: reader.key("name"), "must be 1 to 64 letters, digits, '-', '_' or '.'")
            }
            let hash = try reader.requiredString("keySHA256")
            guard hash.utf8.count == 64, hash.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw ConfigurationError(.invalidValue, key: reader.key("keySHA256"), "must be the lowercase hex SHA-256 of the key (64 characters)")
            }
            guard !backends.contains(where: { $0.name == name }) else {
                throw ConfigurationError(.invalidValue, key: reader.key("name"), "\(name) is listed twice")
            }
            backends.append(BackendKey(name: name, keySHA256: hash))
        }
        return backends
    }

    /// The entry whose hash is the key's, compared in constant time against every entry (no early exit).
    public static func matching(_ key: String, in backends: [BackendKey]) -> BackendKey? {
        let presented = Hex.encode(DigestAlgorithm.sha256.hash(Array(key.utf8)))
        var found: BackendKey?
        for backend in backends where ConstantTime.equals(presented, backend.keySHA256) {
            found = backend
        }
        return found
    }
}
