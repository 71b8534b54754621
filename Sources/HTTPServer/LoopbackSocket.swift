#if canImport(Glibc)
import Glibc
#endif

/// TCP connections to 127.0.0.1 for the load generator and the tests, which talk to a server on this machine
/// (`package`: no part of the server's API; the server itself never opens a client socket).
package enum LoopbackSocket {
    /// A blocking socket connected to 127.0.0.1:`port`, close-on-exec, with TCP_NODELAY (a request is sent at
    /// once, not held back by Nagle's algorithm), bound first to `source` (another loopback address such as
    /// 127.0.0.2: the whole of 127/8 is this machine) when one is given. The caller owns the descriptor and closes it.
    package static func connect(port: Int, from source: String? = nil) throws(HTTPServerError) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HTTPServerError(.connectFailed, "socket: \(String(cString: strerror(errno)))") }
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        if let source {
            var local = address(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard bound else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw HTTPServerError(.connectFailed, "bind to \(source): \(reason)")
            }
        }
        var remote = address("127.0.0.1", port: port)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw HTTPServerError(.connectFailed, "connect to 127.0.0.1:\(port): \(reason)")
        }
        return descriptor
    }

    private static func address(_ text: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr(text)
        return address
    }
}
