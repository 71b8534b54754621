import COpenSSL

/// The client side of TLS for every outbound connection: one OpenSSL `SSL_CTX` holding the trust anchors and the
/// protocol policy, from which one `TLSClientSession` per connection is made.
///
/// Policy: TLS 1.2 minimum, no compression, no renegotiation, ALPN `http/1.1`. Verification is always on
/// (`SSL_VERIFY_PEER`, no switch to turn it off): against the system roots (`SSL_CTX_set_default_verify_paths`, which
/// honours `SSL_CERT_FILE` and `SSL_CERT_DIR`), or, when a CA file is given, against the certificates in that file
/// only. Each session also checks the server's name (DNS name or IP address) and sends it as SNI.
///
/// `@unchecked Sendable`: the `SSL_CTX` is fully configured in `init` and never changed afterwards; OpenSSL documents
/// `SSL_new` on a shared, no-longer-modified `SSL_CTX` as thread-safe.
public final class TLSClientContext: @unchecked Sendable {
    let context: OpaquePointer
    /// Where the trust anchors come from, for reasons and logs: "the system roots" or the CA file's path.
    public let trustSource: String

    /// A context trusting the system roots, or only the PEM certificates in `caFile` when given.
    public init(caFile: String? = nil) throws(CryptoError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw CryptoError(.contextFailed, "SSL_CTX_new failed: \(TLSServerContext.takeOpenSSLError())")
        }
        do throws(CryptoError) {
            try Self.applyPolicy(to: context)
            if let caFile {
                guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                    throw CryptoError(.caFileUnreadable, "\(caFile): \(TLSServerContext.takeOpenSSLError())")
                }
            } else {
                guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                    throw CryptoError(.contextFailed, "cannot use the system roots: \(TLSServerContext.takeOpenSSLError())")
                }
            }
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        self.context = context
        trustSource = caFile ?? "the system roots"
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A new client session for a connection to `serverName` (a DNS name, or an IPv4 or IPv6 address without
    /// brackets): the certificate must be valid for that name, which is also sent as SNI when it is not an address.
    public func makeSession(serverName: String) throws(CryptoError) -> TLSClientSession {
        try TLSClientSession(context: context, serverName: serverName)
    }

    /// "http/1.1" as an ALPN protocol list (length-prefixed).
    private static let applicationProtocols: [UInt8] = [8] + Array("http/1.1".utf8)

    private static func applyPolicy(to context: OpaquePointer) throws(CryptoError) {
        guard pk_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw CryptoError(.contextFailed, "cannot set the minimum protocol version: \(TLSServerContext.takeOpenSSLError())")
        }
        _ = pk_SSL_CTX_set_options(context, PK_SSL_OP_NO_COMPRESSION | PK_SSL_OP_NO_RENEGOTIATION)
        _ = pk_SSL_CTX_set_mode(context, PK_SSL_MODE_RELEASE_BUFFERS)
        guard SSL_CTX_set_alpn_protos(context, applicationProtocols, UInt32(applicationProtocols.count)) == 0 else {
            throw CryptoError(.contextFailed, "cannot set the ALPN protocols: \(TLSServerContext.takeOpenSSLError())")
        }
        // The verdict is OpenSSL's (the callback returns it unchanged); the callbacks only record what happened, so
        // that a failure can say which check failed after libevent has reset the connection.
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, TLSHandshakeObservation.verifyCallback)
        SSL_CTX_set_info_callback(context, TLSHandshakeObservation.infoCallback)
        SSL_CTX_set_msg_callback(context, TLSHandshakeObservation.messageCallback)
    }
}
