import Dispatch
import Testing

@testable import Observability

/// The registry's text exposition (Prometheus 0.0.4): headers, label escaping, cumulative histogram buckets, collected
/// values; and counters that lose nothing under concurrent increments.
struct MetricsRegistryTests {
    @Test func countersHistogramsAndCollectedValuesAreRenderedInTheTextFormat() {
        let registry = MetricsRegistry()
        let counter = registry.counter("demo_events_total", "Events.\nSecond line \\ here.", labels: ["kind"])
        counter.increment(["a"])
        counter.increment(["quote\"back\\slash\nnewline"], by: 2)
        let histogram = registry.histogram("demo_seconds", "Latency.", labels: ["route"], buckets: [0.1, 1])
        histogram.observe(["/x"], 0.05)
        histogram.observe(["/x"], 0.5)
        histogram.observe(["/x"], 5)
        registry.collect("demo_open", "Open now.") { [([], 3)] }
        registry.collect("demo_ratio", "A fraction.", labels: ["side"]) { [(["left"], 0.25)] }
        let text = registry.render()
        #expect(
            text == """
                # HELP demo_events_total Events.\\nSecond line \\\\ here.
                # TYPE demo_events_total counter
                demo_events_total{kind="a"} 1
                demo_events_total{kind="quote\\"back\\\\slash\\nnewline"} 2
                # HELP demo_seconds Latency.
                # TYPE demo_seconds histogram
                demo_seconds_bucket{route="/x",le="0.1"} 1
                demo_seconds_bucket{route="/x",le="1"} 2
                demo_seconds_bucket{route="/x",le="+Inf"} 3
                demo_seconds_sum{route="/x"} 5.55
                demo_seconds_count{route="/x"} 3
                # HELP demo_open Open now.
                # TYPE demo_open gauge
                demo_open 3
                # HELP demo_ratio A fraction.
                # TYPE demo_ratio gauge
                demo_ratio{side="left"} 0.25

                """
        )
    }

    @Test func concurrentIncrementsAreAllCounted() {
        let registry = MetricsRegistry()
        let family = registry.counter("demo_total", "Concurrent.", labels: ["route"])
        let histogram = registry.histogram("demo_duration_seconds", "Concurrent.")
        DispatchQueue.concurrentPerform(iterations: 16) { thread in
            for index in 0..<10_000 {
                family.increment([index % 2 == 0 ? "even" : "odd"])
                histogram.observe([], Double(thread) / 100)
            }
        }
        #expect(family.series(["even"]).value == 80_000 && family.series(["odd"]).value == 80_000)
        #expect(histogram.series().snapshot.count == 160_000)
    }

    @Test func numbersAreWrittenAsPrometheusReadsThem() {
        #expect(MetricsRegistry.number(3) == "3")
        #expect(MetricsRegistry.number(0.001) == "0.001")
        #expect(MetricsRegistry.number(.infinity) == "+Inf")
        #expect(MetricsRegistry.number(-.infinity) == "-Inf")
        #expect(MetricsRegistry.number(.nan) == "NaN")
        #expect(MetricsRegistry.labels([], []) == "")
    }
}
