import Foundation
import Testing

/// A code's wire string is written once, in its definition (`case originMismatch = "clientData.originMismatch"` in
/// the type's private `Base` enum): everything else compares typed codes, so the compiler checks every comparison.
/// These tests read every Swift file under `Sources/`, find every `Code` definition, and check it against
/// `ErrorCodeRegistry` (each module's `allCases`).
struct ErrorCodeSpellingTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources")

    /// One `Base` enum found in the sources: its file, and its cases' wire strings with their lines.
    struct Definition {
        let file: String
        let wireStrings: [String]
        let lines: Set<Int>
    }

    struct SourceFile {
        let path: String
        let lines: [String]
    }

    static func sourceFiles() throws -> [SourceFile] {
        let root = sources.path
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { throw CocoaError(.fileReadNoSuchFile) }
        var files: [SourceFile] = []
        for case let relative as String in enumerator where relative.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
            files.append(SourceFile(path: "Sources/" + relative, lines: text.components(separatedBy: "\n")))
        }
        return files.sorted { $0.path < $1.path }
    }

    /// Every `private enum Base: String, CaseIterable { case name = "wire" … }` in the sources.
    static func definitions(in files: [SourceFile]) -> [Definition] {
        let caseLine = /^\s*case\s+\w+\s*=\s*"([^"]+)"\s*$/
        var found: [Definition] = []
        for file in files {
            var index = 0
            while index < file.lines.count {
                defer { index += 1 }
                guard file.lines[index].contains("enum Base: String, CaseIterable {") else { continue }
                var wireStrings: [String] = []
                var lines: Set<Int> = []
                index += 1
                while index < file.lines.count, file.lines[index].trimmingCharacters(in: .whitespaces) != "}" {
                    if let match = file.lines[index].wholeMatch(of: caseLine) {
                        wireStrings.append(String(match.1))
                        lines.insert(index)
                    }
                    index += 1
                }
                found.append(Definition(file: file.path, wireStrings: wireStrings, lines: lines))
            }
        }
        return found
    }

    @Test func everyCodeTypeInTheSourcesIsRegistered() throws {
        let files = try Self.sourceFiles()
        let definitions = Self.definitions(in: files)
        // Every `struct Code` follows the one pattern: a private `Base` enum of wire strings.
        let codeTypes = files.flatMap { file in file.lines.filter { $0.contains("struct Code: Hashable, Sendable") }.map { _ in file.path } }
        #expect(codeTypes.sorted() == definitions.map(\.file).sorted(), "a Code type without a `Base: String, CaseIterable` enum")
        for definition in definitions {
            let matches = ErrorCodeRegistry.entries.filter { Set($0.wireStrings) == Set(definition.wireStrings) }
            #expect(
                matches.count == 1,
                "the Code type in \(definition.file) (\(definition.wireStrings.prefix(3).joined(separator: ", "))…) is not in ErrorCodeRegistry"
            )
        }
        for entry in ErrorCodeRegistry.entries {
            #expect(definitions.contains { Set($0.wireStrings) == Set(entry.wireStrings) }, "\(entry.type) has no definition in Sources/")
            #expect(Set(entry.wireStrings).count == entry.wireStrings.count, "\(entry.type) repeats a wire string")
            #expect(!entry.wireStrings.isEmpty && entry.wireStrings.allSatisfy { !$0.isEmpty }, "\(entry.type) has an empty code")
        }
    }

    @Test func noWireStringIsDefinedTwice() throws {
        var owners: [String: [String]] = [:]
        for entry in ErrorCodeRegistry.entries {
            for wire in entry.wireStrings { owners[wire, default: []].append(entry.type) }
        }
        for (wire, types) in owners.sorted(by: { $0.key < $1.key }) where types.count > 1 {
            #expect(ErrorCodeRegistry.sharedWireStrings.contains(wire), "\(wire) is defined by \(types.joined(separator: " and "))")
        }
    }

    @Test func noCodeIsSpelledOutsideItsDefinition() throws {
        let files = try Self.sourceFiles()
        let definitions = Self.definitions(in: files)
        let definitionLines = Dictionary(grouping: definitions, by: \.file).mapValues { $0.reduce(into: Set<Int>()) { $0.formUnion($1.lines) } }
        let wireStrings = Set(ErrorCodeRegistry.entries.flatMap(\.wireStrings))
        #expect(wireStrings.count > 150, "the registry lists \(wireStrings.count) codes")
        // Quoted anywhere on the line: in a string literal, inside a raw JSON string, in a comment.
        let quoted = wireStrings.sorted().map { "\"\($0)\"" }
        var offenders: [String] = []
        for file in files {
            for (index, line) in file.lines.enumerated() where definitionLines[file.path]?.contains(index) != true && line.contains("\"") {
                for wire in quoted where line.contains(wire) {
                    offenders.append("\(file.path):\(index + 1): \(wire)")
                }
            }
        }
        #expect(offenders.isEmpty, "error codes spelled outside their definition:\n\(offenders.joined(separator: "\n"))")
    }
}
