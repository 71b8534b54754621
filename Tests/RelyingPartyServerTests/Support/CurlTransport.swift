import Foundation
import HTTPFields
import TestSupport

/// Sends each request with `/usr/bin/curl` over HTTPS (certificate not verified: a self-signed loopback server),
/// the JSON body on standard input.
struct CurlTransport: Transport {
    let baseURL: String
    /// The loopback address the requests come from (`--interface`), such as 127.0.0.2; nil for 127.0.0.1.
    let source: String?

    init(port: Int, from source: String? = nil) {
        baseURL = "https://127.0.0.1:\(port)"
        self.source = source
    }

    func send(_ method: String, _ path: String, body: [UInt8]?, headers: [(String, String)]) throws -> ServerReply {
        var arguments = ["-s", "-S", "-k", "-i", "--max-time", "20", "-X", method] + (source.map { ["--interface", $0] } ?? [])
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        if body != nil {
            if !headers.contains(where: { $0.0.lowercased() == "content-type" }) { arguments += ["-H", "Content-Type: application/json"] }
            arguments += ["--data-binary", "@-"]
        }
        arguments.append(baseURL + path)
        let result = try ChildProcess.run("/usr/bin/curl", arguments, input: body.map { Data($0) })
        guard result.status == 0 else { throw TransportFailure("curl exited with \(result.status): \(result.errorOutput)") }
        return try Self.parse(Array(result.output))
    }

    /// Splits curl's `-i` output into status, headers and body.
    static func parse(_ output: [UInt8]) throws -> ServerReply {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = output.firstRange(of: separator) else { throw TransportFailure("no header section in curl's output") }
        let head = String(decoding: output[..<end.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TransportFailure("no status line in curl's output") }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return ServerReply(status: status, headers: headers, body: Array(output[end.upperBound...]))
    }
}
