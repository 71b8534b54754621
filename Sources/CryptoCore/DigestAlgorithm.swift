import COpenSSL

/// A hash function provided by OpenSSL.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    case sha1, sha256, sha384, sha512

    /// Output length in bytes.
    public var outputLength: Int {
        switch self {
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The provider implementation, fetched once: an implicit fetch on every use costs a lock and a lookup.
    var messageDigest: OpaquePointer {
        switch self {
        case .sha1: FetchedDigests.sha1.pointer
        case .sha256: FetchedDigests.sha256.pointer
        case .sha384: FetchedDigests.sha384.pointer
        case .sha512: FetchedDigests.sha512.pointer
        }
    }

    /// The digest of `bytes`.
    public func hash(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { hash(UnsafeRawBufferPointer($0)) }
    }

    /// The digest of a slice, without copying it.
    public func hash(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        bytes.withUnsafeBufferPointer { hash(UnsafeRawBufferPointer($0)) }
    }

    /// The digest of `first || second`, without building the concatenation.
    public func hash(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
        ByteArrayBuilder.build(capacity: outputLength) { output in
            hash(first, second, into: output)
            return outputLength
        }
    }

    /// Writes the digest of `first || second` to `output`, which holds exactly `outputLength` bytes.
    func hash(_ first: [UInt8], _ second: [UInt8], into output: UnsafeMutableBufferPointer<UInt8>) {
        precondition(output.count == outputLength, "a \(rawValue) digest needs \(outputLength) bytes")
        first.withUnsafeBufferPointer { a in
            second.withUnsafeBufferPointer { b in
                if self == .sha256 {
                    pk_sha256_two(a.baseAddress, a.count, b.baseAddress, b.count, output.baseAddress)
                    return
                }
                let context = EVP_MD_CTX_new()
                defer { EVP_MD_CTX_free(context) }
                let status =
                    context != nil
                    && EVP_DigestInit_ex(context, messageDigest, nil) == 1
                    && EVP_DigestUpdate(context, a.baseAddress, a.count) == 1
                    && EVP_DigestUpdate(context, b.baseAddress, b.count) == 1
                    && EVP_DigestFinal_ex(context, output.baseAddress, nil) == 1
                precondition(status, "EVP_Digest failed for \(rawValue)")
            }
        }
    }

    private func hash(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        if self == .sha256 {
            return ByteArrayBuilder.build(capacity: 32) { output in
                pk_sha256_two(input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, nil, 0, output.baseAddress)
                return 32
            }
        }
        var output = [UInt8](repeating: 0, count: outputLength)
        let status = output.withUnsafeMutableBufferPointer { out in
            EVP_Digest(input.baseAddress, input.count, out.baseAddress, nil, messageDigest, nil)
        }
        precondition(status == 1, "EVP_Digest failed for \(rawValue)")
        return output
    }
}

/// Immutable OpenSSL digest implementations, fetched once per process and never freed (like `EVP_sha256()`).
private struct FetchedDigests: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(_ name: String) {
        guard let fetched = EVP_MD_fetch(nil, name, nil) else { fatalError("OpenSSL has no \(name) implementation") }
        pointer = fetched
    }

    static let sha1 = FetchedDigests("SHA1")
    static let sha256 = FetchedDigests("SHA256")
    static let sha384 = FetchedDigests("SHA384")
    static let sha512 = FetchedDigests("SHA512")
}
