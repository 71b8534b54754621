import Foundation
import RelyingPartyServer
import Testing

/// `manifest.json` of a backup: what is written reads back, and everything that is not a manifest this build writes
/// is refused (other formats, unknown or missing members, names outside the data folder's files, bad hashes).
@Suite struct BackupManifestTests {
    static let manifest = BackupManifest(
        release: "0.1.0",
        driver: "sqlite",
        schemaVersion: 15,
        createdAt: Date(timeIntervalSince1970: 1_796_500_000.75),
        files: [BackupManifest.File(name: "passkeyd.sqlite", content: [1, 2, 3]), BackupManifest.File(name: "server-secret", content: [4])]
    )

    static func text(_ manifest: BackupManifest = manifest) -> String { String(decoding: manifest.json, as: UTF8.self) }

    @Test func aManifestReadsBackAsWritten() throws {
        let read = try #require(BackupManifest(json: Self.manifest.json))
        #expect(read == Self.manifest)
        #expect(read.createdAt == Date(timeIntervalSince1970: 1_796_500_000))
        #expect(Self.text().contains(#""sha256":"039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81""#))
        let file = try #require(read.file(named: "passkeyd.sqlite"))
        #expect(file.matches([1, 2, 3]))
        #expect(!file.matches([1, 2, 4]) && !file.matches([1, 2]))
        let postgres = BackupManifest(
            release: "0.1.0",
            driver: "postgresql",
            schemaVersion: nil,
            createdAt: Date(timeIntervalSince1970: 0),
            files: []
        )
        #expect(BackupManifest(json: postgres.json) == postgres)
    }

    @Test(arguments: [
        (#""format":"passkeyd-backup-1""#, #""format":"passkeyd-backup-2""#),
        (#""driver":"sqlite""#, #""driver":"mysql""#),
        (#""schemaVersion":15"#, #""schemaVersion":0"#),
        (#""schemaVersion":15,"#, ""),
        (#""driver":"sqlite""#, #""driver":"postgresql""#),
        (#""name":"server-secret""#, #""name":"../server-secret""#),
        (#""name":"server-secret""#, #""name":"passkeyd.sqlite""#),
        (#""sha256":"039058"#, #""sha256":"039058ZZ"#),
        (#""sha256":"039058"#, #""sha256":"039058C"#),
        (#""bytes":3"#, #""bytes":-3"#),
        (#""release":"0.1.0""#, #""release":"0.1.0","extra":1"#),
        (#""createdAt":"20"#, #""createdAt":"x20"#),
    ])
    func whatIsNotAManifestIsRefused(replacing: String, with replacement: String) throws {
        let text = Self.text()
        #expect(text.contains(replacing))
        let changed = text.replacingOccurrences(of: replacing, with: replacement)
        #expect(BackupManifest(json: Array(changed.utf8)) == nil, "\(changed)")
    }

    @Test func anOversizedOrMalformedManifestIsRefused() {
        #expect(BackupManifest(json: Array(repeating: 0x20, count: BackupManifest.maximumBytes + 1) + Self.manifest.json) == nil)
        #expect(BackupManifest(json: Array(Self.manifest.json.dropLast(3))) == nil)
        #expect(BackupManifest(json: []) == nil)
    }
}
