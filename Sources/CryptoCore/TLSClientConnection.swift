import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// A blocking TLS client connection to 127.0.0.1, for the loopback load generator only.
///
/// It does NOT verify the server's certificate or name: it exists to measure a server on this machine
/// (`insecureForLoopbackBenchmark`), never to talk to anything that matters. Not thread-safe: one thread per connection.
public final class TLSClientConnection {
    private let context: OpaquePointer
    private let connection: OpaquePointer
    private let descriptor: Int32

    /// Connects to 127.0.0.1:`port` with TCP_NODELAY and completes a TLS handshake without verifying the peer.
    public static func insecureForLoopbackBenchmark(port: Int) throws(CryptoError) -> TLSClientConnection {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw CryptoError(code: "tls.connectFailed", reason: "socket() failed") }
        var noDelay: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(descriptor)
            throw CryptoError(code: "tls.connectFailed", reason: "cannot connect to 127.0.0.1:\(port)")
        }
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            close(descriptor)
            throw CryptoError(code: "tls.contextFailed", reason: "SSL_CTX_new failed")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        guard let connection = SSL_new(context) else {
            SSL_CTX_free(context)
            close(descriptor)
            throw CryptoError(code: "tls.contextFailed", reason: "SSL_new failed")
        }
        guard SSL_set_fd(connection, descriptor) == 1, SSL_connect(connection) == 1 else {
            ERR_clear_error()
            SSL_free(connection)
            SSL_CTX_free(context)
            close(descriptor)
            throw CryptoError(code: "tls.handshakeFailed", reason: "the TLS handshake with 127.0.0.1:\(port) failed")
        }
        return TLSClientConnection(context: context, connection: connection, descriptor: descriptor)
    }

    private init(context: OpaquePointer, connection: OpaquePointer, descriptor: Int32) {
        self.context = context
        self.connection = connection
        self.descriptor = descriptor
    }

    deinit {
        SSL_free(connection)
        SSL_CTX_free(context)
        close(descriptor)
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws(CryptoError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { SSL_write(connection, $0.baseAddress! + offset, Int32(bytes.count - offset)) }
            guard written > 0 else {
                ERR_clear_error()
                throw CryptoError(code: "tls.writeFailed", reason: "SSL_write failed")
            }
            offset += Int(written)
        }
    }

    /// Reads what is available (blocking until something is) into `buffer`; 0 when the peer closed.
    public func read(into buffer: inout [UInt8]) throws(CryptoError) -> Int {
        let count = buffer.withUnsafeMutableBytes { SSL_read(connection, $0.baseAddress, Int32($0.count)) }
        if count > 0 { return Int(count) }
        let error = SSL_get_error(connection, count)
        ERR_clear_error()
        if error == SSL_ERROR_ZERO_RETURN || (error == SSL_ERROR_SYSCALL && count == 0) { return 0 }
        throw CryptoError(code: "tls.readFailed", reason: "SSL_read failed (\(error))")
    }
}
