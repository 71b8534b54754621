import Foundation

/// A page of the documentation site (`docs/`, built by `make docs`), read by the tests that check its reference
/// tables and examples against the code. Failure messages name the page to edit (`docs/reference/errors.md`).
struct DocumentationPage {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The page's path under `docs/`, e.g. `reference/errors.md`.
    let path: String
    let lines: [String]

    init(_ path: String) throws {
        self.path = path
        let url = Self.repository.appendingPathComponent("docs").appendingPathComponent(path)
        lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
    }

    /// What a failure tells the reader to edit.
    var name: String { "docs/" + path }

    var text: String { lines.joined(separator: "\n") }

    /// The rows of every table whose header line is `header` (after the first line containing `anchor`, when given),
    /// each row split into its trimmed cells.
    func tables(header: String, after anchor: String? = nil) -> [[String]] {
        var index = 0
        if let anchor {
            guard let found = lines.firstIndex(where: { $0.contains(anchor) }) else { return [] }
            index = found
        }
        var rows: [[String]] = []
        while let headerIndex = lines[index...].firstIndex(of: header), headerIndex + 2 <= lines.count {
            let body = lines[(headerIndex + 2)...].prefix { $0.hasPrefix("|") }
            rows += body.map(Self.cells)
            if anchor != nil { break }
            index = headerIndex + 2 + body.count
        }
        return rows
    }

    /// A table row's cells, trimmed; an escaped `\|` stays inside its cell.
    static func cells(_ row: String) -> [String] {
        let marked = row.replacingOccurrences(of: "\\|", with: "\u{1}")
        return marked.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
            .map { $0.replacingOccurrences(of: "\u{1}", with: "|").trimmingCharacters(in: .whitespaces) }
    }

    /// The backticked names in a cell (`a`, `b.c` → ["a", "b.c"]), outside parentheses.
    static func codeSpans(_ cell: String) -> [String] {
        var spans: [String] = []
        var depth = 0
        for (index, part) in cell.split(separator: "`", omittingEmptySubsequences: false).enumerated() {
            if index % 2 == 1, depth == 0 { spans.append(String(part)) }
            if index % 2 == 0 { depth += part.filter { $0 == "(" }.count - part.filter { $0 == ")" }.count }
        }
        return spans
    }

    /// The fenced block that follows the line `marker` (an HTML comment such as `<!-- check-domain: NAME -->`).
    func block(after marker: String) throws -> String {
        guard let start = lines.firstIndex(of: marker), start + 1 < lines.count, lines[start + 1].hasPrefix("```"),
            let end = lines[(start + 2)...].firstIndex(where: { $0.hasPrefix("```") })
        else { throw Missing(page: name, what: marker) }
        return lines[(start + 2)..<end].map { $0 + "\n" }.joined()
    }

    struct Missing: Error, CustomStringConvertible {
        let page: String
        let what: String
        var description: String { "\(page) has no \(what)" }
    }
}
