import CBOR
import CryptoCore
import Foundation
import WebAuthnCore

/// Measures assertion and registration verification rates against OpenSSL's raw verify rate for the same key
/// and message, in the same process and run, and prints `RATIO <name> <value>` lines.
struct CoreBenchmark {
    let secondsPerFigure: Double

    func run() {
        for (name, algorithm) in [("es256", COSEAlgorithm.es256), ("eddsa", .eddsa), ("rs256", .rs256)] {
            let fixture = try! AssertionFixture(algorithm: algorithm)
            let raw = rate { _ = fixture.rawVerify() }
            let passkeyd = rate { _ = fixture.ceremonyVerify() }
            print(String(format: "assertion-%@ passkeyd %.0f/s, openssl-raw %.0f/s", name, passkeyd, raw))
            print(String(format: "RATIO assertion-%@ %.3f", name, passkeyd / raw))
        }
    }

    /// Calls per second of `body`, after a warm-up, over `secondsPerFigure`.
    private func rate(_ body: () -> Void) -> Double {
        for _ in 0..<200 { body() }
        var calls = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var elapsed: UInt64 = 0
        repeat {
            for _ in 0..<100 { body() }
            calls += 100
            elapsed = DispatchTime.now().uptimeNanoseconds - start
        } while Double(elapsed) < secondsPerFigure * 1e9
        return Double(calls) / (Double(elapsed) / 1e9)
    }
}
