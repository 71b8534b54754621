import Synchronization

/// The metrics of one process: counters and histograms updated where things happen, and values read at scrape time
/// (`collect`: open connections, queue depths, ages), rendered in the Prometheus text exposition format (0.0.4).
/// One registry is made at start-up and handed to whatever records into it (no global registry).
public final class MetricsRegistry: Sendable {
    /// A value computed at scrape time: its label values and the number.
    public typealias Sample = (labels: [String], value: Double)

    private enum Entry: Sendable {
        case counters(MetricFamily<Counter>)
        case histograms(MetricFamily<Histogram>)
        case collected(name: String, help: String, type: MetricType, labelNames: [String], values: @Sendable () -> [Sample])

        var name: String {
            switch self {
            case .counters(let family): family.name
            case .histograms(let family): family.name
            case .collected(let name, _, _, _, _): name
            }
        }
    }

    private let entries = Mutex<[Entry]>([])

    /// The latency buckets, in seconds: 1 ms to 10 s.
    public static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    public init() {}

    /// A counter family (`name` ends in `_total`).
    public func counter(_ name: String, _ help: String, labels: [String] = []) -> MetricFamily<Counter> {
        let family = MetricFamily(name: name, help: help, type: .counter, labelNames: labels) { Counter() }
        add(.counters(family))
        return family
    }

    /// A histogram family with `buckets` (upper bounds, ascending; `+Inf` is implied).
    public func histogram(_ name: String, _ help: String, labels: [String] = [], buckets: [Double] = latencyBuckets) -> MetricFamily<Histogram> {
        let family = MetricFamily(name: name, help: help, type: .histogram, labelNames: labels) { Histogram(upperBounds: buckets) }
        add(.histograms(family))
        return family
    }

    /// A gauge (or counter) whose samples `values` computes at each scrape, on the scraping thread.
    public func collect(
        _ name: String,
        _ help: String,
        type: MetricType = .gauge,
        labels: [String] = [],
        _ values: @escaping @Sendable () -> [Sample]
    ) {
        add(.collected(name: name, help: help, type: type, labelNames: labels, values: values))
    }

    private func add(_ entry: Entry) {
        entries.withLock { entries in
            precondition(!entries.contains { $0.name == entry.name }, "the metric \(entry.name) is registered twice")
            entries.append(entry)
        }
    }

    /// The text exposition of every metric, in registration order.
    public func render() -> String {
        var text = ""
        for entry in entries.withLock({ $0 }) {
            switch entry {
            case .counters(let family):
                Self.header(&text, family.name, family.help, family.type)
                for (labels, counter) in family.allSeries {
                    text += family.name + Self.labels(family.labelNames, labels) + " \(counter.value)\n"
                }
            case .histograms(let family):
                Self.header(&text, family.name, family.help, family.type)
                for (labels, histogram) in family.allSeries {
                    let snapshot = histogram.snapshot
                    for (bound, count) in zip(histogram.upperBounds, snapshot.cumulative) {
                        text += family.name + "_bucket" + Self.labels(family.labelNames + ["le"], labels + [Self.number(bound)]) + " \(count)\n"
                    }
                    text += family.name + "_bucket" + Self.labels(family.labelNames + ["le"], labels + ["+Inf"]) + " \(snapshot.count)\n"
                    text += family.name + "_sum" + Self.labels(family.labelNames, labels) + " \(Self.number(snapshot.sum))\n"
                    text += family.name + "_count" + Self.labels(family.labelNames, labels) + " \(snapshot.count)\n"
                }
            case .collected(let name, let help, let type, let labelNames, let values):
                Self.header(&text, name, help, type)
                for sample in values() {
                    text += name + Self.labels(labelNames, sample.labels) + " \(Self.number(sample.value))\n"
                }
            }
        }
        return text
    }

    private static func header(_ text: inout String, _ name: String, _ help: String, _ type: MetricType) {
        text += "# HELP \(name) \(help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n"))\n"
        text += "# TYPE \(name) \(type.rawValue)\n"
    }

    /// `{name="value",…}` with values escaped (backslash, double quote, newline), or nothing without labels.
    static func labels(_ names: [String], _ values: [String]) -> String {
        guard !names.isEmpty else { return "" }
        let pairs = zip(names, values).map { name, value in
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
            return "\(name)=\"\(escaped)\""
        }
        return "{" + pairs.joined(separator: ",") + "}"
    }

    /// A sample value: integers without a fraction, `+Inf`, `-Inf`, `NaN`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
