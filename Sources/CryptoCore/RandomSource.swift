import COpenSSL

/// Where random bytes come from. Injected everywhere so that tests can be deterministic.
public protocol RandomSource: Sendable {
    func bytes(count: Int) -> [UInt8]
}

/// OpenSSL's CSPRNG (`RAND_bytes`).
public struct SystemRandom: RandomSource {
    public init() {}

    public func bytes(count: Int) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return output }
        let status = output.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(status == 1, "RAND_bytes failed: the CSPRNG is unusable")
        return output
    }
}
