/// Builds the `[UInt8]`s that CryptoCore returns (decoded base64url, digests) the cheapest way for their size.
///
/// `[UInt8](unsafeUninitializedCapacity:)` and `[UInt8](repeating:count:)` reach the runtime's unspecialized
/// `_ContiguousArrayBuffer` initialiser, which looks the storage class up in the generic metadata cache (a hash
/// table behind a lock) on every call. Writing into a stack buffer and copying it into an array skips that lookup:
/// 40 against 63 ns for 100 bytes in a micro-benchmark, and the lookup was 1.7 % of an RS256 assertion's
/// verification, more than decoding its base64url. Beyond `stackLimit` the copy costs more than the lookup.
enum ByteArrayBuilder {
    /// The largest output built on the stack; larger ones are written into the array directly.
    static let stackLimit = 1024

    /// The bytes `write` puts in a buffer of `capacity` bytes, of which it returns how many it wrote, or nil (and
    /// then no array) when it fails.
    static func build(capacity: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int?) -> [UInt8]? {
        guard capacity <= stackLimit else {
            var written: Int?
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                written = write(buffer)
                initialized = written ?? 0
            }
            return written == nil ? nil : bytes
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(capacity, 1)) { buffer in
            guard let written = write(UnsafeMutableBufferPointer(rebasing: buffer[..<capacity])) else { return nil }
            return Array(UnsafeBufferPointer(rebasing: buffer[..<written]))
        }
    }

    /// The bytes `write` puts in a buffer of `capacity` bytes, of which it returns how many it wrote.
    static func build(capacity: Int, _ write: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> [UInt8] {
        // The optional build never answers nil for a write that cannot fail.
        build(capacity: capacity) { buffer -> Int? in write(buffer) } ?? []
    }
}
