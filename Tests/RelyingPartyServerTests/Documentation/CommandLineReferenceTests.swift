import Foundation
import TestSupport
import Testing

/// The command-line reference (docs/reference/cli.md) shows exactly what `passkeyd help` prints, so that every
/// command and option that exists is documented and every documented one exists.
struct CommandLineReferenceTests {
    static let page = "reference/cli.md"

    @Test func theReferenceIsWhatPasskeydHelpPrints() throws {
        let result = try ChildProcess.run(try ServeProcess.executable(), ["help"])
        #expect(result.status == 0)
        let printed = String(decoding: result.output, as: UTF8.self)
        let shown = try DocumentationPage(Self.page).block(after: "<!-- passkeyd help -->")
        if shown != printed {
            let path = NSTemporaryDirectory() + "passkeyd-help.txt"
            try? printed.write(toFile: path, atomically: true, encoding: .utf8)
            Issue.record("docs/\(Self.page) does not show what `passkeyd help` prints (written to \(path)):\n\(printed)")
        }
    }
}
