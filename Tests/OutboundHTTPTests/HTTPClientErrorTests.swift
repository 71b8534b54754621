import HTTPServer
import OutboundHTTP
import Testing

/// The client's codes are logged and recorded with webhook deliveries: moving them out of `HTTPServerError` into the
/// client's own error type kept every wire string the client had.
struct HTTPClientErrorTests {
    @Test func everyCodeKeepsTheWireStringItHadInTheServersError() {
        let before = [
            "http.clientURLInvalid", "http.clientSchemeRefused", "http.clientRequestInvalid", "http.clientOverloaded",
            "http.clientShutDown", "http.clientCalledOnEventLoop", "http.clientResolveFailed", "http.clientConnectFailed",
            "http.clientTimeout", "http.clientTLSHandshakeFailed", "http.clientCertificateUntrusted",
            "http.clientCertificateExpired", "http.clientCertificateNotYetValid", "http.clientCertificateInvalid",
            "http.clientHostnameMismatch", "http.clientConnectionClosed", "http.clientReplyMalformed", "http.clientReplyTooLarge",
        ]
        // Starting a client failed with the server's codes before; these two are the client's own now.
        let added = ["http.clientEventLoopFailed", "http.clientConfigurationInvalid"]
        #expect(Set(HTTPClientError.Code.allCases.map(\.rawValue)) == Set(before + added))
        #expect(HTTPServerError.Code.allCases.allSatisfy { !$0.rawValue.hasPrefix("http.client") }, "the server keeps none of them")
    }

    @Test func aClientThatCannotStartSaysSoWithItsOwnCode() {
        #expect(throws: HTTPClientError(.configurationInvalid, "maximumConnections must be positive and maximumWaitingRequests not negative")) {
            _ = try HTTPClient(configuration: HTTPClientConfiguration(maximumConnections: 0))
        }
    }
}
