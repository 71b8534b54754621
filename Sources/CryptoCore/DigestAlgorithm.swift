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

    var messageDigest: OpaquePointer {
        switch self {
        case .sha1: EVP_sha1()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
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

    private func hash(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: outputLength)
        let status = output.withUnsafeMutableBufferPointer { out in
            EVP_Digest(input.baseAddress, input.count, out.baseAddress, nil, messageDigest, nil)
        }
        precondition(status == 1, "EVP_Digest failed for \(rawValue)")
        return output
    }
}
