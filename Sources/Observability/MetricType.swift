/// The Prometheus metric types passkeyd exports.
public enum MetricType: String, Sendable {
    case counter
    case gauge
    case histogram
}
