import CCurl

/// Sends messages to one SMTP relay with libcurl's SMTP client: STARTTLS required (`smtp://` with
/// `CURLUSESSL_ALL`) or TLS from the start (`smtps://`), the certificate and the host name always verified, AUTH when
/// a user name is set, and every step within the configured deadlines. One connection per message.
///
/// `send` blocks its thread for up to `timeoutMilliseconds` (and the QUIT after a failure up to as long again): call it from a worker thread, never from an event loop.
public final class SMTPClient: Sendable {
    /// `curl_global_init`, once per process, before the first handle (it is not thread-safe itself).
    private static let initialized: Bool = curl_global_init(PK_CURL_GLOBAL_DEFAULT) == CURLE_OK

    public let configuration: SMTPConfiguration

    public init(configuration: SMTPConfiguration) throws(MailError) {
        try configuration.validate()
        guard Self.initialized else { throw MailError(.configurationInvalid, "libcurl could not be initialized") }
        self.configuration = configuration
    }

    /// Where the messages go, for logs: `smtp://host:port` (no credentials).
    public var relayDescription: String {
        "\(configuration.security == .tls ? "smtps" : "smtp")://\(configuration.host):\(configuration.port)"
    }

    /// Sends `message` from `message.from` to `message.to`; returns once the relay accepted it (250 after the data).
    public func send(_ message: MailMessage) throws(MailError) {
        try send(message.rendered(), from: message.from, to: message.to)
    }

    /// Sends an already rendered message (`MailMessage.rendered()`, as the outbox stores it) with this envelope.
    public func send(_ bytes: [UInt8], from sender: MailAddress, to recipient: MailAddress) throws(MailError) {
        guard !bytes.isEmpty else { throw MailError(.messageTooLarge, "the message is empty") }
        guard let handle = curl_easy_init() else { throw MailError(.sendFailed, "curl_easy_init failed") }
        defer { curl_easy_cleanup(handle) }
        var recipients: UnsafeMutablePointer<curl_slist>? = nil
        defer { curl_slist_free_all(recipients) }
        recipients = curl_slist_append(nil, "<\(recipient.address)>")
        guard let recipients else { throw MailError(.sendFailed, "curl_slist_append failed") }
        let result: CURLcode = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { start in
                var upload = pk_curl_upload(bytes: start, length: buffer.count, offset: 0)
                return withUnsafeMutablePointer(to: &upload) { upload in
                    let configured = configure(handle, sender: sender.address, recipients: recipients, upload: upload)
                    return configured == CURLE_OK ? curl_easy_perform(handle) : configured
                }
            }
        }
        guard result != CURLE_OK else { return }
        var reply = 0
        _ = pk_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &reply)
        throw Self.failure(result, replyCode: reply, relay: relayDescription)
    }

    private func configure(
        _ handle: UnsafeMutableRawPointer,
        sender: String,
        recipients: UnsafeMutablePointer<curl_slist>,
        upload: UnsafeMutablePointer<pk_curl_upload>
    ) -> CURLcode {
        let configuration = configuration
        let url = "\(configuration.security == .tls ? "smtps" : "smtp")://\(configuration.host):\(configuration.port)/\(configuration.heloName)"
        var steps: [() -> CURLcode] = [
            { pk_curl_setopt_string(handle, CURLOPT_URL, url) },
            { pk_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps") },
            { pk_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1) },
            { pk_curl_setopt_long(handle, CURLOPT_USE_SSL, configuration.security == .plain ? PK_CURLUSESSL_NONE : PK_CURLUSESSL_ALL) },
            { pk_curl_setopt_long(handle, CURLOPT_SSLVERSION, PK_CURL_SSLVERSION_TLSv1_2) },
            { pk_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1) },
            { pk_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2) },
            { pk_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeoutMilliseconds) },
            { pk_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, configuration.timeoutMilliseconds) },
            // Also bounds the wait for the reply to QUIT when the handle is closed after a failure (libcurl's own
            // default is 120 s), so a send never blocks for more than about twice `timeoutMilliseconds`.
            { pk_curl_setopt_long(handle, CURLOPT_SERVER_RESPONSE_TIMEOUT, (configuration.timeoutMilliseconds + 999) / 1000) },
            { pk_curl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(sender)>") },
            { pk_curl_setopt_list(handle, CURLOPT_MAIL_RCPT, recipients) },
            { pk_curl_set_upload(handle, upload) },
        ]
        if let caFile = configuration.caFile {
            steps.append { pk_curl_setopt_string(handle, CURLOPT_CAINFO, caFile) }
        }
        if let username = configuration.username, let password = configuration.password {
            steps.append { pk_curl_setopt_string(handle, CURLOPT_USERNAME, username) }
            steps.append { pk_curl_setopt_string(handle, CURLOPT_PASSWORD, password) }
        }
        for step in steps {
            let code = step()
            if code != CURLE_OK { return code }
        }
        return CURLE_OK
    }

    /// libcurl's result and the relay's last reply code as a `MailError`: 5xx is permanent, everything else
    /// transient.
    static func failure(_ result: CURLcode, replyCode: Int, relay: String) -> MailError {
        let curlText = String(cString: curl_easy_strerror(result))
        let reason = "\(relay): \(curlText) (curl \(result.rawValue)\(replyCode > 0 ? ", reply \(replyCode)" : ""))"
        let reply = replyCode > 0 ? replyCode : nil
        switch result {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT: return MailError(.connectFailed, reason, replyCode: reply)
        case CURLE_OPERATION_TIMEDOUT: return MailError(.timeout, reason, replyCode: reply)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE: return MailError(.certificateInvalid, reason, replyCode: reply)
        case CURLE_SSL_CONNECT_ERROR, CURLE_USE_SSL_FAILED: return MailError(.tlsFailed, reason, replyCode: reply)
        case CURLE_LOGIN_DENIED: return MailError(.authenticationFailed, reason, replyCode: reply)
        default: break
        }
        switch replyCode {
        case 500..<600: return MailError(.rejectedPermanently, reason, replyCode: reply)
        case 400..<500: return MailError(.rejectedTemporarily, reason, replyCode: reply)
        default: return MailError(.sendFailed, reason, replyCode: reply)
        }
    }
}
