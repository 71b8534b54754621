import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `Tests/Python/mail/smtp_server.py` as a child process: an aiosmtpd relay on loopback (in `.venv-mail`, made by
/// `make mail-deps`) with STARTTLS or TLS under a certificate of a `TestCertificateAuthority`, AUTH with one user,
/// and every accepted message parsed by Python's `email` package and logged.
public final class SMTPStandIn {
    /// One message the relay accepted, as Python's `email` package read it.
    public struct Received: Sendable {
        public let mailFrom: String
        public let recipients: [String]
        public let tls: Bool
        public let authenticated: Bool
        public let login: String?
        public let from: String
        public let fromDisplayName: String?
        public let fromAddress: String?
        public let to: String
        public let replyTo: String?
        public let subject: String
        public let messageID: String
        public let date: String
        public let dateParsed: String?
        public let contentType: String
        public let text: String?
        public let html: String?
        public let headerNames: [String]
        public let defects: [String]
    }

    public enum Security: Sendable {
        case starttls
        case tls
        case plain
    }

    public static let user = "passkeyd-relay"
    public static let password = "relay password 1"

    public let port: Int
    public let security: Security
    public let requiresAuthentication: Bool
    /// The names of the relay's certificate.
    public let certificateNames: [String]
    public let authority: TestCertificateAuthority
    public let logPath: String
    private let controlPath: String
    private let folder: String
    private var process: SpawnedProcess?

    public init(
        security: Security = .starttls,
        requiresAuthentication: Bool = true,
        certificateNames: [String] = ["localhost", "127.0.0.1"],
        port: Int? = nil
    ) throws {
        self.port = try port ?? LoopbackPort.free()
        self.security = security
        self.requiresAuthentication = requiresAuthentication
        self.certificateNames = certificateNames
        authority = try TestCertificateAuthority()
        folder = authority.folder
        logPath = folder + "/smtp-\(self.port).jsonl"
        controlPath = folder + "/smtp-\(self.port).control"
    }

    /// The CA file a client needs to trust this relay's certificate.
    public var caFile: String { authority.certificateFile }

    public static func python() throws -> String {
        let python = repository() + "/.venv-mail/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the SMTP relay's venv is missing: run make mail-deps"])
        }
        return python
    }

    static func repository() -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// Starts the relay (again, on the same port and certificate authority) and waits until it listens.
    public func start() throws {
        let ready = logPath + ".ready"
        try? FileManager.default.removeItem(atPath: ready)
        var arguments = [Self.repository() + "/Tests/Python/mail/smtp_server.py", "--port", String(port), "--log", logPath, "--control", controlPath]
        if security != .plain {
            let issued = try authority.issue(names: certificateNames)
            arguments += ["--cert", issued.chain, "--key", issued.key]
            if security == .tls { arguments.append("--implicit-tls") }
        }
        if requiresAuthentication { arguments += ["--user", Self.user, "--password", Self.password] }
        let process = try SpawnedProcess(try Self.python(), arguments, standardError: .file(logPath + ".stderr"))
        self.process = process
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            guard process.isRunning else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the SMTP relay exited early"]) }
            if FileManager.default.fileExists(atPath: ready) { return }
            usleep(50_000)
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "the SMTP relay did not start within 15 s"])
    }

    /// Stops the relay: nothing listens on its port until `start`.
    public func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Makes the relay refuse recipients with `rcpt`, refuse messages with `data`, or wait `delay` seconds before
    /// answering a message; all nil: behave.
    public func misbehave(rcpt: Int? = nil, data: Int? = nil, delay: Double? = nil) throws {
        var members: [String] = []
        if let rcpt { members.append("\"rcpt\": \(rcpt)") }
        if let data { members.append("\"data\": \(data)") }
        if let delay { members.append("\"delay\": \(delay)") }
        try Data(("{" + members.joined(separator: ", ") + "}").utf8).write(to: URL(fileURLWithPath: controlPath))
    }

    /// Every message accepted so far, in arrival order.
    public func received() -> [Received] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Received(
                mailFrom: object["mailFrom"] as? String ?? "",
                recipients: object["rcptTos"] as? [String] ?? [],
                tls: object["tls"] as? Bool ?? false,
                authenticated: object["authenticated"] as? Bool ?? false,
                login: object["login"] as? String,
                from: object["from"] as? String ?? "",
                fromDisplayName: object["fromDisplayName"] as? String,
                fromAddress: object["fromAddress"] as? String,
                to: object["to"] as? String ?? "",
                replyTo: object["replyTo"] as? String,
                subject: object["subject"] as? String ?? "",
                messageID: object["messageID"] as? String ?? "",
                date: object["date"] as? String ?? "",
                dateParsed: object["dateParsed"] as? String,
                contentType: object["contentType"] as? String ?? "",
                text: object["text"] as? String,
                html: object["html"] as? String,
                headerNames: object["headerNames"] as? [String] ?? [],
                defects: object["defects"] as? [String] ?? []
            )
        }
    }

    /// Waits until `condition` holds for the messages received, at most `seconds`.
    @discardableResult
    public func wait(seconds: TimeInterval = 20, until condition: ([Received]) -> Bool) -> [Received] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let received = received()
            if condition(received) { return received }
            usleep(100_000)
        }
        return received()
    }

    deinit {
        stop()
    }
}
