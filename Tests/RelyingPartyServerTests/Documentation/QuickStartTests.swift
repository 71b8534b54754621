import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The README's quick start, run as written against `passkeyd serve --config examples/passkeyd.json` (what `make run`
/// starts), on a free port instead of 8443: every `curl` line of its shell block succeeds, answers JSON that is not an
/// error, and the line whose comment shows its answer answers exactly that.
@Suite(.serialized) struct QuickStartTests {
    /// The shell block after `## Quick start` in README.md, its continued lines joined: one command a line.
    static func commands() throws -> [String] {
        let readme = try String(contentsOf: DocumentationPage.repository.appendingPathComponent("README.md"), encoding: .utf8)
        guard let section = readme.range(of: "## Quick start"), let start = readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex),
            let end = readme.range(of: "```", range: start.upperBound..<readme.endIndex)
        else { throw DocumentationPage.Missing(page: "README.md", what: "shell block in its Quick start") }
        return readme[start.upperBound..<end.lowerBound].replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test func everyCurlLineOfTheQuickStartAnswers() throws {
        let commands = try Self.commands()
        #expect(commands.count >= 3 && commands.allSatisfy { $0.hasPrefix("curl ") }, "README.md: \(commands)")
        let folder = try TemporaryFolder()
        let repository = DocumentationPage.repository.path
        let port = try LoopbackPort.free()
        // examples/passkeyd.json with its repository-relative paths made absolute, as `make run` reads them from the root.
        let example = try String(contentsOfFile: repository + "/examples/passkeyd.json", encoding: .utf8)
            .replacingOccurrences(of: #""https": "127.0.0.1:8443""#, with: #""https": "127.0.0.1:\#(port)""#)
            .replacingOccurrences(of: #""dataDirectory": "data""#, with: #""dataDirectory": "\#(folder.path)/data""#)
            .replacingOccurrences(of: #""www": "www""#, with: #""www": "\#(repository)/www""#)
            .replacingOccurrences(of: #""TrustAnchors/"#, with: #""\#(repository)/TrustAnchors/"#)
        let configuration = folder.path + "/passkeyd.json"
        try Data(example.utf8).write(to: URL(fileURLWithPath: configuration))
        let server = try SpawnedProcess(
            try ServeProcess.executable(),
            ["serve", "--config", configuration],
            standardError: .file(folder.path + "/serve.log")
        )
        defer {
            kill(server.processIdentifier, SIGTERM)
            server.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(15)
        while (try? CurlTransport(port: port).send("GET", "/healthz", body: nil, headers: []))?.status != 200, Date() < deadline, server.isRunning {
            usleep(100_000)
        }
        for command in commands {
            let line = command.replacingOccurrences(of: "https://localhost:8443", with: "https://localhost:\(port)")
            let shell = String(line.split(separator: "#", maxSplits: 1)[0])
            let result = try ChildProcess.run("/bin/sh", ["-c", shell])
            let output = String(decoding: result.output, as: UTF8.self)
            #expect(result.status == 0, "README.md quick start: \(command) exited \(result.status): \(result.errorOutput)")
            #expect(output.hasPrefix("{") && !output.contains(#""error""#), "README.md quick start: \(command) answered \(output)")
            if let shown = line.split(separator: "#", maxSplits: 1).dropFirst().first?.trimmingCharacters(in: .whitespaces), shown.hasPrefix("{") {
                #expect(output == shown, "README.md quick start: \(command) answered \(output)")
            }
        }
    }
}
