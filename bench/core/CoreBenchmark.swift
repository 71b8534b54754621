import CBOR
import CryptoCore
import Foundation
import WebAuthnCore

/// Measures assertion verification rates against OpenSSL's raw verify rate for the same key and message, in
/// the same process and run, and prints `RATIO <name> <value>` lines. The two are measured in alternating
/// slices, so that a change in machine load affects both alike.
struct CoreBenchmark {
    let secondsPerFigure: Double

    func run() {
        let selected = ProcessInfo.processInfo.environment["BENCH_ALGORITHMS"]?.split(separator: ",").map(String.init)
        for (name, algorithm) in [("es256", COSEAlgorithm.es256), ("eddsa", .eddsa), ("rs256", .rs256)] where selected?.contains(name) ?? true {
            let fixture = try! AssertionFixture(algorithm: algorithm)
            precondition(fixture.rawVerify() && fixture.ceremonyVerify(), "the \(name) fixture does not verify")
            let (raw, passkeyd) = interleavedRates({ _ = fixture.rawVerify() }, { _ = fixture.ceremonyVerify() })
            print(String(format: "assertion-%@ passkeyd %.0f/s, openssl-raw %.0f/s", name, passkeyd, raw))
            print(String(format: "RATIO assertion-%@ %.3f", name, passkeyd / raw))
        }
        for algorithm in JWSAlgorithm.allCases where selected?.contains("token-" + algorithm.rawValue.lowercased()) ?? true {
            let fixture = try! TokenFixture(algorithm: algorithm)
            precondition(fixture.rawSign() && fixture.mintVerifies(), "the \(algorithm.rawValue) token fixture does not sign")
            let (raw, passkeyd) = interleavedRates({ _ = fixture.rawSign() }, { _ = fixture.mint() })
            let name = algorithm.rawValue.lowercased()
            print(String(format: "token-sign-%@ passkeyd %.0f/s, openssl-raw %.0f/s", name, passkeyd, raw))
            print(String(format: "RATIO token-sign-%@ %.3f", name, passkeyd / raw))
        }
    }

    /// Calls per second of each body, measured in 20 alternating slices after a warm-up.
    private func interleavedRates(_ first: () -> Void, _ second: () -> Void) -> (Double, Double) {
        for _ in 0..<200 {
            first()
            second()
        }
        var firstTotal = (calls: 0, nanoseconds: UInt64(0))
        var secondTotal = (calls: 0, nanoseconds: UInt64(0))
        for _ in 0..<10 {
            let a = slice(first)
            firstTotal = (firstTotal.calls + a.calls, firstTotal.nanoseconds + a.nanoseconds)
            let b = slice(second)
            secondTotal = (secondTotal.calls + b.calls, secondTotal.nanoseconds + b.nanoseconds)
        }
        return (
            Double(firstTotal.calls) / (Double(firstTotal.nanoseconds) / 1e9),
            Double(secondTotal.calls) / (Double(secondTotal.nanoseconds) / 1e9)
        )
    }

    private func slice(_ body: () -> Void) -> (calls: Int, nanoseconds: UInt64) {
        let start = DispatchTime.now().uptimeNanoseconds
        var elapsed: UInt64 = 0
        var calls = 0
        repeat {
            for _ in 0..<50 { body() }
            calls += 50
            elapsed = DispatchTime.now().uptimeNanoseconds - start
        } while Double(elapsed) < secondsPerFigure / 20 * 1e9
        return (calls, elapsed)
    }
}
