import Foundation
import TestSupport

/// `/metrics` read by prometheus-client's own parser (Tests/Python/metrics/parse.py in `.venv-metrics`, made by
/// `make metrics-deps`): what a scraper's client library makes of the text.
enum PrometheusParser {
    /// One family as the parser read it.
    struct Family {
        let type: String
        let samples: [(name: String, labels: [String: String], value: Double)]

        /// The value of the sample `name` with exactly `labels`, nil when there is none.
        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { $0.name == name && $0.labels == labels }?.value
        }
    }

    static func parse(_ text: String) throws -> [String: Family] {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let python = repository + "/.venv-metrics/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TransportFailure("the metrics parser's venv is missing: run make metrics-deps")
        }
        let result = try ChildProcess.run(python, [repository + "/Tests/Python/metrics/parse.py"], input: Data(text.utf8))
        guard result.status == 0 else { throw TransportFailure("prometheus-client refused the exposition: \(result.errorOutput)") }
        guard let object = try JSONSerialization.jsonObject(with: result.output) as? [String: [String: Any]] else {
            throw TransportFailure("the parser printed no object")
        }
        return object.mapValues { family in
            let samples = (family["samples"] as? [[Any]] ?? []).map { sample in
                (
                    name: sample[0] as? String ?? "",
                    labels: sample[1] as? [String: String] ?? [:],
                    value: (sample[2] as? Double) ?? (sample[2] as? String == "+Inf" ? .infinity : .nan)
                )
            }
            return Family(type: family["type"] as? String ?? "", samples: samples)
        }
    }
}
