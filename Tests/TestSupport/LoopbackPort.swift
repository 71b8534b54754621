import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Ports on 127.0.0.1 for servers the tests start.
///
/// They are drawn from 20000–32767, below Linux's ephemeral range (32768–60999): a port the kernel hands out for
/// `bind` to port 0 is one it may also hand a connecting client a moment later, and the flood tests open thousands of
/// client connections while other tests start servers. Within this process the ports are taken in turn from a random
/// start, so two tests never get the same one; across processes a bind check skips those in use.
public enum LoopbackPort {
    private static let range = 20_000...32_767
    private static let next = Mutex(Int.random(in: range))

    /// A port that was free a moment ago on 127.0.0.1 and that no other caller in this process was given.
    public static func free() throws -> Int {
        for _ in 0..<range.count {
            let candidate = next.withLock { value in
                let port = value
                value = value == range.upperBound ? range.lowerBound : value + 1
                return port
            }
            if isFree(candidate) { return candidate }
        }
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot find a free port"])
    }

    /// Whether a listening socket can be bound to `port` on 127.0.0.1 now.
    private static func isFree(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && listen(descriptor, 1) == 0 }
        }
    }
}
