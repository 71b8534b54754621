import CryptoCore
import Foundation
import JSON
import Observability

/// `manifest.json` of a `passkeyd backup` folder: which release wrote it, the store's driver and schema version, when,
/// and each file with its size and SHA-256, so that `passkeyd restore` puts back only a whole, unaltered copy of a
/// schema it can open. Only the files a data folder holds can be named (`fileNames`), so a manifest cannot point a
/// restore anywhere else.
public struct BackupManifest: Sendable, Equatable {
    /// The most bytes of a manifest `init(json:)` reads.
    public static let maximumBytes = 16_384
    /// The manifest's own format, `format` in the file; a restore refuses any other.
    public static let format = "passkeyd-backup-1"
    /// The files a backup may hold: the SQLite database, the secrets, and the self-signed TLS pair.
    public static let fileNames = [
        "passkeyd.sqlite", "server-secret", "apple-refresh-token-key", "tls-certificate.pem", "tls-private-key.pem",
    ]

    /// One file of the backup.
    public struct File: Sendable, Equatable {
        public let name: String
        public let bytes: Int64
        /// Lowercase hexadecimal SHA-256 of the content.
        public let sha256: String

        public init(name: String, content: [UInt8]) {
            self.init(name: name, bytes: Int64(content.count), sha256: Hex.encode(DigestAlgorithm.sha256.hash(content)))
        }

        init(name: String, bytes: Int64, sha256: String) {
            self.name = name
            self.bytes = bytes
            self.sha256 = sha256
        }

        /// Whether `content` is this file's, compared in constant time (a secret's hash is derived from the secret).
        public func matches(_ content: [UInt8]) -> Bool {
            Int64(content.count) == bytes && ConstantTime.equals(File(name: name, content: content).sha256, sha256)
        }
    }

    /// The release that wrote the backup (`passkeyd version`).
    public let release: String
    /// `sqlite`, or `postgresql` for a manifest that holds no data (the database is `pg_dump`'s).
    public let driver: String
    /// The database's schema version (`PRAGMA user_version`); nil for PostgreSQL.
    public let schemaVersion: Int?
    /// When the copy was taken (the snapshot is of this moment or just after), to the second.
    public let createdAt: Date
    public let files: [File]

    public init(release: String, driver: String, schemaVersion: Int?, createdAt: Date, files: [File]) {
        self.release = release
        self.driver = driver
        self.schemaVersion = schemaVersion
        self.createdAt = Date(timeIntervalSince1970: createdAt.timeIntervalSince1970.rounded(.down))
        self.files = files
    }

    /// The manifest as JSON, members in a fixed order.
    public var json: [UInt8] {
        var writer = JSONObjectWriter()
        writer.add("format", Self.format)
        writer.add("release", release)
        writer.add("driver", driver)
        if let schemaVersion { writer.add("schemaVersion", Int64(schemaVersion)) }
        writer.add("createdAt", RFC3339Timestamp.seconds(createdAt))
        writer.add("files", objects: files) { object, file in
            object.add("name", file.name)
            object.add("bytes", file.bytes)
            object.add("sha256", file.sha256)
        }
        return writer.finished() + [UInt8(ascii: "\n")]
    }

    /// Reads a manifest; nil for anything that is not one this build writes: another format, a member missing or
    /// unknown, a file outside `fileNames` or named twice, a size or hash out of shape.
    public init?(json: [UInt8]) {
        guard json.count <= Self.maximumBytes, let object = StrictJSONParser.strictValue(json)?.objectValue,
            Set(object.keys).isSubset(of: ["format", "release", "driver", "schemaVersion", "createdAt", "files"]),
            object["format"]?.stringValue == Self.format,
            let release = object["release"]?.stringValue, (1...64).contains(release.utf8.count),
            let driver = object["driver"]?.stringValue, ["sqlite", "postgresql"].contains(driver),
            let createdText = object["createdAt"]?.stringValue, createdText.utf8.count <= 64, let createdAt = ISO8601Time.parse(createdText),
            let entries = object["files"]?.arrayValue, entries.count <= Self.fileNames.count
        else { return nil }
        var schemaVersion: Int?
        if let version = object["schemaVersion"] {
            guard let number = version.integerValue, (1...1_000_000).contains(number) else { return nil }
            schemaVersion = number
        }
        guard (driver == "sqlite") == (schemaVersion != nil) else { return nil }
        var files: [File] = []
        for entry in entries {
            guard let member = entry.objectValue, Set(member.keys) == ["name", "bytes", "sha256"],
                let name = member["name"]?.stringValue, Self.fileNames.contains(name), !files.contains(where: { $0.name == name }),
                let bytes = member["bytes"]?.integerValue, bytes >= 0,
                let sha256 = member["sha256"]?.stringValue, sha256.utf8.count == 64,
                sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            else { return nil }
            files.append(File(name: name, bytes: Int64(bytes), sha256: sha256))
        }
        self.init(release: release, driver: driver, schemaVersion: schemaVersion, createdAt: createdAt, files: files)
    }

    /// The entry of the file named `name`, if the backup holds it.
    public func file(named name: String) -> File? { files.first { $0.name == name } }
}
