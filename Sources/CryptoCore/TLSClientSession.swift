import COpenSSL

#if canImport(Glibc)
import Glibc
#endif

/// One client `SSL` for one outbound connection, set up to verify `serverName`, and what its handshake showed.
///
/// The `SSL` itself (`connection`) is handed to the transport (a libevent bufferevent made with close-on-free), which
/// frees it; if it never is, call `discard`. The session must outlive the transport's use of the `SSL`: OpenSSL's
/// callbacks write into the session's observation. Used on one thread (the one that drives the connection).
public final class TLSClientSession {
    /// The `SSL*`, in client mode, as an opaque pointer.
    public let connection: OpaquePointer
    private let observation: TLSHandshakeObservation

    init(context: OpaquePointer, serverName: String) throws(CryptoError) {
        guard let connection = SSL_new(context) else {
            throw CryptoError(.sessionFailed, "SSL_new failed: \(TLSServerContext.takeOpenSSLError())")
        }
        observation = TLSHandshakeObservation(serverName: serverName)
        do throws(CryptoError) {
            try Self.expect(serverName, on: connection)
        } catch {
            SSL_free(connection)
            throw error
        }
        SSL_set_connect_state(connection)
        SSL_set_ex_data(connection, TLSHandshakeObservation.exDataIndex, Unmanaged.passUnretained(observation).toOpaque())
        self.connection = connection
    }

    /// Frees the `SSL` when no transport took it over.
    public func discard() {
        SSL_free(connection)
    }

    /// RFC 6125 name checking through OpenSSL: an IP address must be in an iPAddress subjectAltName, a DNS name in a
    /// dNSName subjectAltName (no partial wildcards), and only a DNS name goes out as SNI (RFC 6066 §3).
    private static func expect(_ serverName: String, on connection: OpaquePointer) throws(CryptoError) {
        guard !serverName.isEmpty, !serverName.utf8.contains(0) else { throw CryptoError(.sessionFailed, "the server name is empty") }
        if isIPAddress(serverName) {
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(connection), serverName) == 1 else {
                throw CryptoError(.sessionFailed, "cannot expect the address \(serverName): \(TLSServerContext.takeOpenSSLError())")
            }
            return
        }
        SSL_set_hostflags(connection, PK_X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS)
        guard SSL_set1_host(connection, serverName) == 1, pk_SSL_set_tlsext_host_name(connection, serverName) == 1 else {
            throw CryptoError(.sessionFailed, "cannot expect the name \(serverName): \(TLSServerContext.takeOpenSSLError())")
        }
    }

    /// Whether `name` is an IPv4 or IPv6 address literal (without brackets).
    public static func isIPAddress(_ name: String) -> Bool {
        var address4 = in_addr()
        var address6 = in6_addr()
        return inet_pton(AF_INET, name, &address4) == 1 || inet_pton(AF_INET6, name, &address6) == 1
    }

    /// The negotiated parameters, once the handshake completed.
    public var peerFacts: TLSPeerFacts? { observation.facts }

    /// Whether the handshake completed (the certificate and the name were verified).
    public var isEstablished: Bool { observation.facts != nil }

    /// Why the handshake failed, or nil when it did not fail in TLS: it completed, or the server never answered in TLS
    /// (the connection was refused or closed first). `openSSLErrors` are the error codes the transport collected
    /// (libevent's `bufferevent_get_openssl_error`), used for the reason of a failure that is not about the certificate.
    public func failure(openSSLErrors: [UInt] = []) -> TLSClientFailure? {
        let error = observation.verificationError
        if error != X509_V_OK {
            let text = X509_verify_cert_error_string(Int(error)).map { String(cString: $0) } ?? "verification error \(error)"
            return TLSClientFailure(
                check: TLSClientFailure.check(forVerificationError: error),
                reason: "\(text) (certificate depth \(observation.verificationErrorDepth))"
            )
        }
        guard observation.peerAnswered, !isEstablished else { return nil }
        let libraryReason = openSSLErrors.first { $0 > 255 }.map { Self.describe(openSSLError: $0) }
        let reason = [observation.alert, libraryReason].compactMap { $0 }.joined(separator: "; ")
        return TLSClientFailure(check: .handshake, reason: reason.isEmpty ? "the TLS handshake failed" : reason)
    }

    /// OpenSSL's text for an error code from the error queue.
    static func describe(openSSLError code: UInt) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
