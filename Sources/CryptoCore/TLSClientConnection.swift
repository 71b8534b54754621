import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// A blocking TLS client connection over a TCP socket the caller connected, for the loopback load generator and
/// the tests only (`package`: no part of CryptoCore's API). CryptoCore opens no sockets; it only runs TLS on one.
///
/// It does NOT verify the server's certificate or name (`dangerouslyUnverified`): it exists to measure and test a
/// server on this machine, never to talk to anything that matters. Not thread-safe: one thread per connection.
package final class TLSClientConnection {
    private let context: OpaquePointer
    private let connection: OpaquePointer
    private let descriptor: Int32

    /// Completes a TLS handshake on the connected socket `descriptor` without verifying the peer. The connection
    /// owns the descriptor from here on: it is closed when the handshake fails or the connection goes away.
    package static func dangerouslyUnverified(socket descriptor: Int32) throws(CryptoError) -> TLSClientConnection {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            close(descriptor)
            throw CryptoError(.contextFailed, "SSL_CTX_new failed")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        guard let connection = SSL_new(context) else {
            SSL_CTX_free(context)
            close(descriptor)
            throw CryptoError(.contextFailed, "SSL_new failed")
        }
        guard SSL_set_fd(connection, descriptor) == 1, SSL_connect(connection) == 1 else {
            ERR_clear_error()
            SSL_free(connection)
            SSL_CTX_free(context)
            close(descriptor)
            throw CryptoError(.handshakeFailed, "the TLS handshake failed")
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

    /// The SHA-256 of the DER certificate the server presented (which certificate a connection was served with).
    package var peerCertificateSHA256: [UInt8] {
        guard let certificate = SSL_get1_peer_certificate(connection) else { return [] }
        defer { X509_free(certificate) }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1 else { return [] }
        return Array(digest.prefix(Int(length)))
    }

    /// Writes all of `bytes`.
    package func write(_ bytes: [UInt8]) throws(CryptoError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { SSL_write(connection, $0.baseAddress! + offset, Int32(bytes.count - offset)) }
            guard written > 0 else {
                ERR_clear_error()
                throw CryptoError(.writeFailed, "SSL_write failed")
            }
            offset += Int(written)
        }
    }

    /// Reads what is available (blocking until something is) into `buffer`; 0 when the peer closed.
    package func read(into buffer: inout [UInt8]) throws(CryptoError) -> Int {
        let count = buffer.withUnsafeMutableBytes { SSL_read(connection, $0.baseAddress, Int32($0.count)) }
        if count > 0 { return Int(count) }
        let error = SSL_get_error(connection, count)
        ERR_clear_error()
        if error == SSL_ERROR_ZERO_RETURN || (error == SSL_ERROR_SYSCALL && count == 0) { return 0 }
        throw CryptoError(.readFailed, "SSL_read failed (\(error))")
    }
}
