import Foundation
import Testing

/// Each C library is imported by exactly one Swift module, its wrapper (the design's first rule): these tests read every
/// Swift file of the repository's Swift trees and fail when a C module is imported anywhere else, tests, benchmarks
/// and fuzz targets included (libevent, for one, is the server's and the outbound client's only through `LibEvent`).
struct CLibraryImportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The one module folder that may import each C module of Package.swift.
    static let wrappers: [String: String] = [
        "COpenSSL": "Sources/CryptoCore",
        "CLibCBOR": "Sources/CBOR",
        "CSQLite": "Sources/StorageSQLite",
        "CLibEvent": "Sources/LibEvent",
        "CLibPQ": "Sources/StoragePostgres",
        "CXCrypt": "Sources/PasswordHashes",
        "CArgon2": "Sources/PasswordHashes",
        "CICU": "Sources/Confusables",
        "CCurl": "Sources/MailTransport",
        "COpenSSLDigest": "clients/swift/Sources/PasskeydClient",
    ]

    /// The folders searched, relative to the repository.
    static let trees = ["Sources", "Tests", "bench", "fuzz", "clients/swift/Sources", "clients/swift/Tests"]

    /// The module folder of a file: `Sources/X/…` → `Sources/X` (for `clients/swift/Sources/X/…` likewise), `fuzz/…` →
    /// `fuzz`.
    static func moduleFolder(of path: String) -> String {
        let parts = path.split(separator: "/").map(String.init)
        let depth = path.hasPrefix("clients/swift/") ? 4 : (path.hasPrefix("fuzz/") ? 1 : 2)
        return parts.prefix(depth).joined(separator: "/")
    }

    /// Every module folder that imports each C module of `wrappers`, with one of its files.
    static func importers() throws -> [String: [String: String]] {
        let importLine = /^(?:@_implementationOnly\s+|(?:internal|private|fileprivate|package|public)\s+)?import\s+(\w+)\s*$/
        var found: [String: [String: String]] = [:]
        for tree in trees {
            let folder = root.appendingPathComponent(tree).path
            guard let enumerator = FileManager.default.enumerator(atPath: folder) else { continue }
            for case let relative as String in enumerator where relative.hasSuffix(".swift") && !relative.hasPrefix(".build") {
                let path = tree + "/" + relative
                let text = try String(contentsOfFile: root.appendingPathComponent(path).path, encoding: .utf8)
                for line in text.split(separator: "\n") {
                    guard let match = line.wholeMatch(of: importLine), wrappers[String(match.1)] != nil else { continue }
                    found[String(match.1), default: [:]][moduleFolder(of: path)] = path
                }
            }
        }
        return found
    }

    @Test func everyCLibraryIsImportedByItsWrapperAlone() throws {
        let found = try Self.importers()
        for (module, wrapper) in Self.wrappers {
            let folders = found[module] ?? [:]
            #expect(
                Set(folders.keys) == [wrapper],
                "\(module) is imported by \(folders.keys.sorted()) (e.g. \(folders.values.sorted())), not \(wrapper) alone"
            )
        }
    }

    /// A C module added to Package.swift needs its line in `wrappers`, so that the check above covers it.
    @Test func everyCModuleOfThePackageHasAWrapper() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let declared = Set(manifest.matches(of: /\.(?:systemLibrary|target)\(\s*name:\s*"(C[A-Z]\w*)"/).map { String($0.1) })
        #expect(declared.contains("CLibEvent"))
        #expect(declared.subtracting(["CBOR"]) == Set(Self.wrappers.keys))
    }

    @Test func theModuleFolderOfAFileIsTheFolderUnderItsTree() {
        #expect(Self.moduleFolder(of: "Sources/HTTPServer/EventLoop.swift") == "Sources/HTTPServer")
        #expect(Self.moduleFolder(of: "Tests/OutboundHTTPTests/HTTPClientTests.swift") == "Tests/OutboundHTTPTests")
        #expect(Self.moduleFolder(of: "clients/swift/Sources/PasskeydClient/Digest.swift") == "clients/swift/Sources/PasskeydClient")
        #expect(Self.moduleFolder(of: "fuzz/Targets/http-request.swift") == "fuzz")
    }
}
