import Foundation
import HTTPFields
import Observability
import OutboundHTTP

/// `AppleService` on the server's one outbound `HTTPClient` (libevent + OpenSSL, certificate verification always on,
/// no redirects followed), with a short deadline and a reply-size limit. The key fetch uses the client's completion API
/// (the key cache runs it in the background); the other calls block their thread (the Apple worker's) until the reply
/// or the deadline.
public final class HTTPClientAppleService: AppleService {
    private let configuration: AppleConfiguration
    private let client: HTTPClient
    private let timeoutSeconds: Double
    private let log: Logger
    /// Replies longer than this are treated as unusable.
    package static let maximumReplyLength = 262_144

    /// Calls Apple through `client`; each call gets `timeoutSeconds` in all. `log` receives why a call got no reply
    /// (the client's error code and reason: scheme, host and port, never a code, token or secret).
    public init(
        configuration: AppleConfiguration,
        client: HTTPClient,
        timeoutSeconds: Double = 5,
        log: Logger = .discarding
    ) {
        self.configuration = configuration
        self.client = client
        self.timeoutSeconds = timeoutSeconds
        self.log = log
    }

    public func fetchKeys(completion: @escaping @Sendable (AppleReply) -> Void) {
        let request = limited(HTTPClientRequest(url: configuration.keysURL.absoluteString, headers: HTTPHeaders([("Accept", "application/json")])))
        let log = self.log
        client.send(request) { result in
            switch result {
            case .success(let reply):
                completion(Self.appleReply(reply))
            case .failure(let error):
                log("apple keys: no reply: \(error)")
                completion(.unreachable)
            }
        }
    }

    public func exchangeCode(_ code: String, clientID: String, clientSecret: String, redirectURI: String?) -> AppleReply {
        send(
            "code exchange",
            Self.form(
                configuration.tokenURL,
                [("client_id", clientID), ("client_secret", clientSecret), ("code", code), ("grant_type", "authorization_code")]
                    + (redirectURI.map { [("redirect_uri", $0)] } ?? [])
            )
        )
    }

    public func revokeToken(_ token: String, clientID: String, clientSecret: String) -> AppleReply {
        send(
            "revocation",
            Self.form(
                configuration.revokeURL,
                [("client_id", clientID), ("client_secret", clientSecret), ("token", token), ("token_type_hint", "refresh_token")]
            )
        )
    }

    public func requestMigrationAccessToken(clientID: String, clientSecret: String) -> AppleReply {
        send(
            "migration token",
            Self.form(
                configuration.tokenURL,
                [("grant_type", "client_credentials"), ("scope", "user.migration"), ("client_id", clientID), ("client_secret", clientSecret)]
            )
        )
    }

    public func migrationInfo(_ fields: [(String, String)], accessToken: String) -> AppleReply {
        send("user migration", Self.form(configuration.migrationURL, fields, headers: [("Authorization", "Bearer \(accessToken)")]))
    }

    /// An application/x-www-form-urlencoded POST.
    package static func form(_ url: URL, _ fields: [(String, String)], headers: [(String, String)] = []) -> HTTPClientRequest {
        HTTPClientRequest(
            method: .post,
            url: url.absoluteString,
            headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")] + headers),
            body: Array(fields.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&").utf8)
        )
    }

    /// Form encoding: everything but unreserved characters percent-encoded.
    package static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// `request` with this service's timeouts and reply-size limit.
    private func limited(_ request: HTTPClientRequest) -> HTTPClientRequest {
        var request = request
        request.connectTimeoutSeconds = timeoutSeconds
        request.deadlineSeconds = timeoutSeconds
        request.maximumReplyBodySize = Self.maximumReplyLength
        return request
    }

    private static func appleReply(_ reply: HTTPClientReply) -> AppleReply {
        AppleReply(status: reply.status, body: reply.body, maximumAge: maximumAge(reply.headers["Cache-Control"]))
    }

    private func send(_ purpose: String, _ request: HTTPClientRequest) -> AppleReply {
        do throws(HTTPClientError) {
            return Self.appleReply(try client.sendAndWait(limited(request)))
        } catch {
            log.warning("apple \(purpose): no reply: \(error)", event: "apple")
            return .unreachable
        }
    }

    /// `max-age=N` of a Cache-Control header.
    package static func maximumAge(_ header: String?) -> Int? {
        guard let header else { return nil }
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int(parts[1]), seconds >= 0 { return seconds }
        }
        return nil
    }
}
