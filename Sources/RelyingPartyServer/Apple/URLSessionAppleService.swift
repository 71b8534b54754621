import Dispatch
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `AppleService` over URLSession, with a short timeout. Each call waits for its reply on a semaphore, so it may
/// run on an event-loop thread only for the rare JWKS fetch; code exchanges and revocations run on the Apple worker.
public final class URLSessionAppleService: AppleService {
    private let configuration: AppleConfiguration
    private let session: URLSession
    /// Replies longer than this are treated as unusable.
    static let maximumReplyLength = 262_144

    public init(configuration: AppleConfiguration, timeoutSeconds: TimeInterval = 5) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = timeoutSeconds
        sessionConfiguration.timeoutIntervalForResource = timeoutSeconds
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.urlCache = nil
        session = URLSession(configuration: sessionConfiguration)
    }

    deinit {
        session.invalidateAndCancel()
    }

    public func fetchKeys() -> AppleReply {
        var request = URLRequest(url: configuration.keysURL)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return send(request)
    }

    public func exchangeCode(_ code: String, clientID: String, clientSecret: String) -> AppleReply {
        send(
            Self.form(
                configuration.tokenURL,
                [
                    ("client_id", clientID), ("client_secret", clientSecret), ("code", code), ("grant_type", "authorization_code"),
                ]
            )
        )
    }

    public func revokeToken(_ token: String, clientID: String, clientSecret: String) -> AppleReply {
        send(
            Self.form(
                configuration.revokeURL,
                [
                    ("client_id", clientID), ("client_secret", clientSecret), ("token", token), ("token_type_hint", "refresh_token"),
                ]
            )
        )
    }

    /// An application/x-www-form-urlencoded POST.
    static func form(_ url: URL, _ fields: [(String, String)]) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(fields.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&").utf8)
        return request
    }

    /// Form encoding: everything but unreserved characters percent-encoded.
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    private func send(_ request: URLRequest) -> AppleReply {
        let finished = DispatchSemaphore(value: 0)
        let reply = ReplyBox()
        let task = session.dataTask(with: request) { data, response, _ in
            if let response = response as? HTTPURLResponse, let data, data.count <= Self.maximumReplyLength {
                reply.value = AppleReply(
                    status: response.statusCode,
                    body: Array(data),
                    maximumAge: Self.maximumAge(response.value(forHTTPHeaderField: "Cache-Control"))
                )
            }
            finished.signal()
        }
        task.resume()
        finished.wait()
        return reply.value
    }

    /// `max-age=N` of a Cache-Control header.
    static func maximumAge(_ header: String?) -> Int? {
        guard let header else { return nil }
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int(parts[1]), seconds >= 0 { return seconds }
        }
        return nil
    }

    /// Carries the reply out of the completion handler; the semaphore orders the write before the read.
    private final class ReplyBox: @unchecked Sendable {
        var value = AppleReply.unreachable
    }
}
