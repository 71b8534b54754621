import Foundation
import JSON

/// What `passkeyd check-domain` found: one line per check, in order, and the exit status they add up to.
public struct DomainCheckReport: Sendable {
    /// A check's result.
    public enum Outcome: String, Sendable {
        /// It holds.
        case pass
        /// It holds, but something may stop some devices.
        case warn
        /// A device would fail on it.
        case fail
        /// Nothing to check (a file that is not published and not needed by the apps given).
        case skip
        /// It could not be checked (the name does not resolve, the connection fails or times out): not a verdict.
        case error
    }

    public struct Check: Sendable, Equatable {
        public let name: String
        public let outcome: Outcome
        public let detail: String
    }

    /// The origin that was checked.
    public let origin: String
    public private(set) var checks: [Check] = []

    init(origin: String) {
        self.origin = origin
    }

    mutating func record(_ name: String, _ outcome: Outcome, _ detail: String) {
        checks.append(Check(name: name, outcome: outcome, detail: detail))
    }

    /// 0 when everything holds (warnings allowed), 1 when something is wrong, 2 when something could not be checked
    /// and nothing was found wrong.
    public var exitStatus: Int32 {
        if checks.contains(where: { $0.outcome == .fail }) { return 1 }
        if checks.contains(where: { $0.outcome == .error }) { return 2 }
        return 0
    }

    var verdict: String {
        switch exitStatus {
        case 0: "ok"
        case 1: "wrong"
        default: "incomplete"
        }
    }

    /// One line per check (`FAIL  apple-app-site-association: …`), then the verdict.
    public var text: String {
        let tags: [Outcome: String] = [.pass: "ok   ", .warn: "warn ", .fail: "FAIL ", .skip: "--   ", .error: "ERROR"]
        var lines = checks.map { "\(tags[$0.outcome] ?? "")  \($0.name): \($0.detail)" }
        let count = { (outcome: Outcome) in self.checks.filter { $0.outcome == outcome }.count }
        lines.append(
            "\(origin): \(verdict) (\(count(.pass)) ok, \(count(.warn)) warnings, \(count(.fail)) failed, \(count(.error)) not checked; exit \(exitStatus))"
        )
        return lines.joined(separator: "\n") + "\n"
    }

    /// `{"origin", "verdict", "exitStatus", "checks": [{"check", "outcome", "detail"}]}` on one line.
    public var json: String {
        struct Line: Encodable {
            let check: String
            let outcome: String
            let detail: String
        }
        struct Document: Encodable {
            let origin: String
            let verdict: String
            let exitStatus: Int32
            let checks: [Line]
        }
        let document = Document(
            origin: origin,
            verdict: verdict,
            exitStatus: exitStatus,
            checks: checks.map { Line(check: $0.name, outcome: $0.outcome.rawValue, detail: $0.detail) }
        )
        return String(decoding: JSONEncoding.encode(document), as: UTF8.self) + "\n"
    }
}
