import Foundation
import WebAuthnCore
import WebAuthnVectors

/// The language-neutral vector files in TestVectors/, found from this file's path.
public struct TestVectorFile: Sendable {
    public let name: String
    public let cases: [VerificationCase]
    /// Each case's `expect` object, by case id.
    public let expectations: [String: [String: ExpectedValue]]

    public static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TestVectors")
    }

    /// Every `*.json` vector file.
    public static func all() throws -> [TestVectorFile] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { try load($0) }
    }

    public static func load(_ name: String) throws -> TestVectorFile {
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        let file = try JSONDecoder().decode(Wire.self, from: data)
        var expectations: [String: [String: ExpectedValue]] = [:]
        for entry in file.cases { expectations[entry.id] = entry.expect }
        return TestVectorFile(name: name, cases: try JSONDecoder().decode(CaseList.self, from: data).cases, expectations: expectations)
    }

    private struct Wire: Decodable {
        struct Entry: Decodable {
            let id: String
            let expect: [String: ExpectedValue]
        }
        let cases: [Entry]
    }

    private struct CaseList: Decodable {
        let cases: [VerificationCase]
    }
}

/// A scalar of a case's `expect` object.
public enum ExpectedValue: Decodable, Sendable, Equatable, CustomStringConvertible {
    case bool(Bool)
    case int(Int)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public var description: String {
        switch self {
        case .bool(let value): "\(value)"
        case .int(let value): "\(value)"
        case .string(let value): value
        }
    }
}
