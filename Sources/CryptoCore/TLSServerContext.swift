import COpenSSL

/// The server side of TLS: one OpenSSL `SSL_CTX` holding the certificate chain, the private key
/// and the protocol policy, from which one `SSL` per accepted connection is made.
///
/// Policy: TLS 1.2 minimum (1.3 preferred by OpenSSL's negotiation), TLS 1.2 suites restricted to
/// ECDHE with AES-GCM or ChaCha20-Poly1305, no compression, no renegotiation, server cipher preference.
///
/// `@unchecked Sendable`: the `SSL_CTX` is fully configured in `init` and never changed afterwards;
/// OpenSSL documents `SSL_new` on a shared, no-longer-modified `SSL_CTX` as thread-safe.
public final class TLSServerContext: @unchecked Sendable {
    private let context: OpaquePointer

    /// The TLS 1.2 cipher suites offered; TLS 1.3 keeps OpenSSL's defaults (all AEAD).
    private static let tls12CipherList = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    /// Loads a PEM certificate chain file (leaf first) and a PEM private key file.
    public init(certificateChainFile: String, privateKeyFile: String) throws(CryptoError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw CryptoError(.contextFailed, "SSL_CTX_new failed: \(Self.takeOpenSSLError())")
        }
        do throws(CryptoError) {
            try Self.applyPolicy(to: context)
            guard SSL_CTX_use_certificate_chain_file(context, certificateChainFile) == 1 else {
                throw CryptoError(.certificateUnreadable, "\(certificateChainFile): \(Self.takeOpenSSLError())")
            }
            let key = try Self.readPrivateKey(privateKeyFile)
            defer { EVP_PKEY_free(key) }
            guard SSL_CTX_use_PrivateKey(context, key) == 1, SSL_CTX_check_private_key(context) == 1 else {
                throw CryptoError(
                    .keyMismatch,
                    "\(privateKeyFile) does not match the certificate in \(certificateChainFile): \(Self.takeOpenSSLError())"
                )
            }
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        self.context = context
    }

    deinit {
        SSL_CTX_free(context)
    }

    /// A new server-mode `SSL*` for one accepted connection, as an opaque pointer; nil on failure.
    /// The caller owns it (a bufferevent created with close-on-free releases it).
    public func makeConnection() -> OpaquePointer? {
        guard let connection = SSL_new(context) else {
            ERR_clear_error()
            return nil
        }
        SSL_set_accept_state(connection)
        return connection
    }

    /// Whether the handshake of `connection` (an `SSL*` this context made) has completed.
    public static func isHandshakeComplete(_ connection: OpaquePointer) -> Bool {
        SSL_is_init_finished(connection) == 1
    }

    private static func applyPolicy(to context: OpaquePointer) throws(CryptoError) {
        guard pk_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
            throw CryptoError(.contextFailed, "cannot set the minimum protocol version: \(takeOpenSSLError())")
        }
        guard SSL_CTX_set_cipher_list(context, tls12CipherList) == 1 else {
            throw CryptoError(.contextFailed, "cannot set the TLS 1.2 cipher list: \(takeOpenSSLError())")
        }
        _ = pk_SSL_CTX_set_options(context, PK_SSL_OP_NO_COMPRESSION | PK_SSL_OP_NO_RENEGOTIATION | PK_SSL_OP_CIPHER_SERVER_PREFERENCE)
        _ = pk_SSL_CTX_set_mode(context, PK_SSL_MODE_RELEASE_BUFFERS)
    }

    private static func readPrivateKey(_ path: String) throws(CryptoError) -> OpaquePointer {
        guard let file = BIO_new_file(path, "r") else {
            throw CryptoError(.privateKeyUnreadable, "\(path): \(takeOpenSSLError())")
        }
        defer { BIO_free(file) }
        guard let key = PEM_read_bio_PrivateKey(file, nil, nil, nil) else {
            throw CryptoError(.privateKeyUnreadable, "\(path): \(takeOpenSSLError())")
        }
        return key
    }

    /// OpenSSL's most recent error as text, clearing the thread's error queue.
    static func takeOpenSSLError() -> String {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return "unknown OpenSSL error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
