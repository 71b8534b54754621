import OutboundHTTP

/// Sends one request and calls back once, from any thread: the process's `HTTPClient`, or a stand-in in tests.
protocol WebhookSender: Sendable {
    func send(_ request: HTTPClientRequest, completion: @escaping @Sendable (Result<HTTPClientReply, HTTPClientError>) -> Void)
}

extension HTTPClient: WebhookSender {}
