/// The complete JSON error responses that replace libevent's own HTML error pages.
enum ErrorResponse {
    /// A raw HTTP/1.1 response for `status` with a JSON body `{"error": …, "message": …}` and `Connection: close`.
    static func raw(status: Int, date: String, maximumBodySize: Int, maximumHeaderSize: Int) -> [UInt8] {
        let (code, message) = describe(status: status, maximumBodySize: maximumBodySize, maximumHeaderSize: maximumHeaderSize)
        let body = "{\"error\":\"\(code)\",\"message\":\"\(message)\"}"
        let head =
            "HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(for: status))\r\n"
            + "Content-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n"
            + "Date: \(date)\r\n"
            + "Connection: close\r\n\r\n"
        return Array((head + body).utf8)
    }

    /// The error code and message for a status libevent decided on.
    private static func describe(status: Int, maximumBodySize: Int, maximumHeaderSize: Int) -> (code: String, message: String) {
        switch status {
        case 413:
            ("request_too_large", "The request body exceeds \(maximumBodySize) bytes.")
        case 400:
            ("bad_request", "The request is malformed or its header section exceeds \(maximumHeaderSize) bytes.")
        case 417:
            ("expectation_failed", "Only 'Expect: 100-continue' is supported.")
        case 405, 501:
            ("method_not_allowed", "The request method is not supported.")
        default:
            ("http_error", HTTPResponse.reasonPhrase(for: status))
        }
    }
}
