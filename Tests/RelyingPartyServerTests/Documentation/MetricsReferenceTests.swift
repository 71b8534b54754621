import Foundation
import Testing

/// The metrics reference (docs/reference/metrics.md) lists every metric passkeyd registers, with its type, and no
/// other: the names are read from the sources (every `.counter(`, `.histogram(` and `.collect(` of a `passkeyd_` name,
/// wherever it is registered), and the types from a running `passkeyd serve`'s `/metrics`.
@Suite(.serialized) struct MetricsReferenceTests {
    static let page = "reference/metrics.md"

    /// Documented metric name → type.
    static func documented() throws -> [String: String] {
        var metrics: [String: String] = [:]
        for cells in try DocumentationPage(page).tables(header: "| metric | type | labels | what |") {
            for name in DocumentationPage.codeSpans(cells[0]) {
                #expect(metrics[name] == nil, "docs/\(page): \(name) has two rows")
                metrics[name] = cells[1]
            }
        }
        return metrics
    }

    /// The metric names registered anywhere in Sources/.
    static func registered() throws -> Set<String> {
        let sources = DocumentationPage.repository.appendingPathComponent("Sources").path
        let pattern = try Regex(#"\.(?:counter|histogram|collect)\(\s*"(passkeyd_[a-z_]+)""#)
        var names: Set<String> = []
        for file in try FileManager.default.subpathsOfDirectory(atPath: sources) where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let name = match.output[1].substring { names.insert(String(name)) }
            }
        }
        return names
    }

    @Test func everyRegisteredMetricIsDocumentedAndNoOther() throws {
        let documented = try Self.documented()
        let registered = try Self.registered()
        #expect(registered.count >= 20, "the source scan found \(registered.sorted())")
        for name in registered.subtracting(documented.keys).sorted() {
            Issue.record("the metric \(name) is not documented: add a row to docs/\(Self.page)")
        }
        for name in Set(documented.keys).subtracting(registered).sorted() {
            Issue.record("docs/\(Self.page) documents \(name), which nothing registers")
        }
    }

    @Test func theTypesAreTheOnesARunningServerRenders() throws {
        let documented = try Self.documented()
        let folder = try TemporaryFolder()
        let server = try ServeProcess(
            dataDirectory: folder.path + "/data",
            configurationPath: folder.path + "/passkeyd.json",
            adminListener: true
        )
        defer { _ = server.terminate() }
        let reply = try CurlTransport(port: try #require(server.adminPort)).send("GET", "/metrics", body: nil, headers: [])
        #expect(reply.status == 200)
        var rendered = 0
        for line in reply.text.split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let parts = line.split(separator: " ")
            let name = String(parts[2])
            let type = String(parts[3])
            rendered += 1
            #expect(documented[name] == type, "docs/\(Self.page): \(name) is a \(type) (documented: \(documented[name] ?? "nothing"))")
        }
        #expect(rendered >= 15)
    }
}
