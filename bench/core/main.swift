import Foundation

// passkeyd-bench core: single-thread verification rates next to OpenSSL's raw verify rate, measured in one run.
let seconds = Double(ProcessInfo.processInfo.environment["BENCH_SECONDS"] ?? "") ?? 2
CoreBenchmark(secondsPerFigure: seconds).run()
