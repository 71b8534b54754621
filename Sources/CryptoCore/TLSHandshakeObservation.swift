import COpenSSL

/// What OpenSSL's callbacks saw during one client handshake: the first certificate verification error, whether the
/// server answered in TLS at all, the alert that ended the handshake, and the negotiated parameters once it completed.
///
/// libevent resets a failed connection (`SSL_clear`) before it reports the failure, so these facts are recorded as they
/// happen. The session's `SSL` points at its observation through ex_data; the callbacks run on the thread that drives
/// the connection, the only thread that reads the observation.
final class TLSHandshakeObservation {
    /// The first `X509_V_ERR_*` OpenSSL reported, 0 for none.
    var verificationError: Int32 = 0
    /// The chain depth of that error (0 = the server's own certificate).
    var verificationErrorDepth: Int32 = 0
    /// True once any TLS record arrived from the server.
    var peerAnswered = false
    /// The long text of the first alert the server sent, or of the alert this side sent.
    var alert: String?
    /// Set when the handshake completed.
    var facts: TLSPeerFacts?
    let serverName: String

    init(serverName: String) {
        self.serverName = serverName
    }

    /// The ex_data slot of every client `SSL` that holds its observation (allocated once per process).
    static let exDataIndex = pk_SSL_get_ex_new_index()

    /// The observation attached to `connection`, if any.
    static func of(_ connection: OpaquePointer?) -> TLSHandshakeObservation? {
        guard let connection, let pointer = SSL_get_ex_data(connection, exDataIndex) else { return nil }
        return Unmanaged<TLSHandshakeObservation>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// `SSL_VERIFY_PEER`'s callback: keeps OpenSSL's verdict and records the first error.
    static let verifyCallback: @convention(c) (Int32, OpaquePointer?) -> Int32 = { preverified, store in
        guard preverified == 0, let store else { return preverified }
        let connection = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()).map(OpaquePointer.init)
        if let observation = of(connection), observation.verificationError == 0 {
            observation.verificationError = X509_STORE_CTX_get_error(store)
            observation.verificationErrorDepth = X509_STORE_CTX_get_error_depth(store)
        }
        return preverified
    }

    /// The info callback: alerts and the end of the handshake.
    static let infoCallback: @convention(c) (OpaquePointer?, Int32, Int32) -> Void = { connection, location, value in
        guard let observation = of(connection), let connection else { return }
        if location & PK_SSL_CB_READ_ALERT == PK_SSL_CB_READ_ALERT || location & PK_SSL_CB_WRITE_ALERT == PK_SSL_CB_WRITE_ALERT {
            let sender = location & PK_SSL_CB_READ_ALERT == PK_SSL_CB_READ_ALERT ? "the server" : "this side"
            if observation.alert == nil, let text = SSL_alert_desc_string_long(value) {
                observation.alert = "\(sender) sent the alert \"\(String(cString: text))\""
            }
        }
        if location & PK_SSL_CB_HANDSHAKE_DONE != 0 {
            let cipher = SSL_get_current_cipher(connection).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) } ?? ""
            observation.facts = TLSPeerFacts(
                protocolVersion: String(cString: SSL_get_version(connection)),
                cipherSuite: cipher,
                serverName: observation.serverName,
                certificateVerified: SSL_get_verify_result(connection) == X509_V_OK
            )
        }
    }

    /// The message callback: notes that the server sent something over TLS.
    static let messageCallback: @convention(c) (Int32, Int32, Int32, UnsafeRawPointer?, Int, OpaquePointer?, UnsafeMutableRawPointer?) -> Void = {
        written,
        _,
        _,
        _,
        _,
        connection,
        _ in
        guard written == 0, let observation = of(connection) else { return }
        observation.peerAnswered = true
    }
}
