import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket on 127.0.0.1 that listens and never accepts: the kernel completes connections into its backlog, and
/// nothing ever answers them (no TLS handshake, no HTTP reply).
public final class SilentListener: Sendable {
    public let descriptor: Int32
    public let port: Int

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 256) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
