#if canImport(Glibc)
import Glibc
#endif

/// A bound, listening, non-blocking TCP socket with TCP_NODELAY set (accepted sockets inherit it;
/// without it keep-alive HTTPS stalls on Nagle vs. delayed ACK).
///
/// Several event loops get one socket each on the same port (`bindGroup`, SO_REUSEPORT), so that the kernel
/// spreads new connections evenly over the loops. With one socket shared by all loops, the loop that wakes
/// first accepts every pending connection (libevent's listener accepts until EAGAIN): in a probe one loop did
/// 77% of the work and the other 23%.
struct ListeningSocket: Sendable {
    /// The socket's file descriptor, owned by the `HTTPServer`.
    let descriptor: Int32
    /// The bound port (the real one when 0 was asked for).
    let port: Int

    /// The listen backlog.
    private static let backlog: Int32 = 1024

    /// `count` sockets listening on the same address, one per event loop.
    ///
    /// The address is first bound alone, without SO_REUSEPORT, so that a port already in use, by any process,
    /// still fails with `bindFailed` (a second server must not silently join the group and take half of the
    /// connections); that socket then makes way for the group on the port it got. With `count` 1 it is kept.
    /// With port 0 the kernel picks a free port for the first socket, and another process may take that port in
    /// the moment between closing it and binding the group; the whole step is then retried on a new port.
    static func bindGroup(_ address: String, count: Int) throws(HTTPServerError) -> [ListeningSocket] {
        let anyPort = (try split(address)).port == "0"
        var attempt = 1
        while true {
            let exclusive = try bind(address)
            guard count > 1 else { return [exclusive] }
            close(exclusive.descriptor)
            var group: [ListeningSocket] = []
            do throws(HTTPServerError) {
                for _ in 0..<count {
                    group.append(try bind(address, sharingPort: exclusive.port))
                }
                return group
            } catch {
                group.forEach { close($0.descriptor) }
                guard anyPort, attempt < 5 else { throw error }
                attempt += 1
            }
        }
    }

    /// Parses "host:port", "[v6]:port" or ":port" and binds and listens; with `sharingPort`, binds that port
    /// instead of the address's with SO_REUSEPORT set.
    static func bind(_ address: String, sharingPort: Int? = nil) throws(HTTPServerError) -> ListeningSocket {
        let (host, addressPort) = try split(address)
        let port = sharingPort.map { String($0) } ?? addressPort
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host.isEmpty ? nil : host, port, &hints, &results)
        guard status == 0, let results else {
            throw HTTPServerError(.invalidAddress, "\(address): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(results) }
        let info = results.pointee

        let descriptor = socket(info.ai_family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw HTTPServerError(.bindFailed, "\(address): socket: \(lastErrorText())")
        }
        var enabled: Int32 = 1
        let length = socklen_t(MemoryLayout<Int32>.size)
        guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &enabled, length) == 0,
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &enabled, length) == 0,
            sharingPort == nil || setsockopt(descriptor, SOL_SOCKET, SO_REUSEPORT, &enabled, length) == 0
        else {
            let reason = lastErrorText()
            close(descriptor)
            throw HTTPServerError(.bindFailed, "\(address): setsockopt: \(reason)")
        }
        guard Glibc.bind(descriptor, info.ai_addr, info.ai_addrlen) == 0, listen(descriptor, backlog) == 0 else {
            let reason = lastErrorText()
            close(descriptor)
            throw HTTPServerError(.bindFailed, "\(address): \(reason)")
        }
        var bound = sockaddr_storage()
        var boundLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &boundLength) }
        }
        guard named == 0 else {
            let reason = lastErrorText()
            close(descriptor)
            throw HTTPServerError(.bindFailed, "\(address): getsockname: \(reason)")
        }
        return ListeningSocket(descriptor: descriptor, port: Self.port(of: bound))
    }

    /// Splits "host:port" at the last colon; brackets around an IPv6 host are removed.
    private static func split(_ address: String) throws(HTTPServerError) -> (host: String, port: String) {
        guard let colon = address.lastIndex(of: ":") else {
            throw HTTPServerError(.invalidAddress, "\(address): expected host:port")
        }
        var host = String(address[..<colon])
        let port = String(address[address.index(after: colon)...])
        guard let number = Int(port), (0...65_535).contains(number) else {
            throw HTTPServerError(.invalidAddress, "\(address): invalid port")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        } else if host.contains(":") {
            throw HTTPServerError(.invalidAddress, "\(address): put an IPv6 address in brackets")
        }
        if host == "*" {
            host = ""
        }
        return (host, String(number))
    }

    private static func port(of address: sockaddr_storage) -> Int {
        var copy = address
        return withUnsafePointer(to: &copy) { pointer in
            if Int32(address.ss_family) == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    private static func lastErrorText() -> String {
        String(cString: strerror(errno))
    }
}
