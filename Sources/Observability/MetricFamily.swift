import Synchronization

/// One metric name with its help text, type and label names, and its series by label values. Series are made on
/// first use and kept; label values must come from bounded sets (route patterns, error codes, configured names),
/// never from request data. A family made with `collect` computes its series at scrape time instead.
public final class MetricFamily<Series: Sendable>: Sendable {
    public let name: String
    public let help: String
    public let type: MetricType
    public let labelNames: [String]
    private let makeSeries: @Sendable () -> Series
    private let series = Mutex<[[String]: Series]>([:])
    private let order = Mutex<[[String]]>([])

    init(name: String, help: String, type: MetricType, labelNames: [String], makeSeries: @escaping @Sendable () -> Series) {
        self.name = name
        self.help = help
        self.type = type
        self.labelNames = labelNames
        self.makeSeries = makeSeries
    }

    /// The series of `labelValues` (one per label name, in order), made on first use.
    public func series(_ labelValues: [String] = []) -> Series {
        precondition(labelValues.count == labelNames.count, "\(name) takes the labels \(labelNames)")
        return series.withLock { all in
            if let existing = all[labelValues] { return existing }
            let made = makeSeries()
            all[labelValues] = made
            order.withLock { $0.append(labelValues) }
            return made
        }
    }

    /// Every series made so far, in the order they were made.
    var allSeries: [(labels: [String], series: Series)] {
        series.withLock { all in order.withLock { $0 }.compactMap { labels in all[labels].map { (labels, $0) } } }
    }
}

extension MetricFamily where Series == Counter {
    /// Adds `amount` to the series of `labelValues`.
    public func increment(_ labelValues: [String] = [], by amount: Int = 1) {
        series(labelValues).increment(by: amount)
    }
}

extension MetricFamily where Series == Histogram {
    public func observe(_ labelValues: [String], _ value: Double) {
        series(labelValues).observe(value)
    }
}
