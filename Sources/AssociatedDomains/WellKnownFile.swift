import CryptoCore
import Foundation
import HTTPServer

/// One published well-known file: its bytes, a strong `ETag` (the SHA-256 of the bytes, so equal bytes have equal
/// tags on every node and across restarts) and `Last-Modified` (when the configuration was loaded), and the
/// conditional requests of RFC 9110 §13 that Apple's CDN and Android's verifier send when they re-fetch.
public struct WellKnownFile: Sendable {
    /// Apple's CDN re-fetches about daily; an hour keeps edits visible soon without hammering the server.
    static let cacheControl = "public, max-age=3600"

    public let body: [UInt8]
    let entityTag: String
    let lastModified: String
    private let lastModifiedSecond: Int

    init(_ body: [UInt8], loadedAt second: Int) {
        self.body = body
        entityTag = "\"" + Base64URL.encode(DigestAlgorithm.sha256.hash(body)) + "\""
        lastModifiedSecond = second
        lastModified = HTTPDate.format(second)
    }

    /// 200 with the file, or 304 when the request's validators show the client holds these bytes.
    public func response(to request: HTTPRequest) -> HTTPResponse {
        var response = isUnchanged(for: request) ? HTTPResponse(status: 304) : HTTPResponse.json(status: 200, body)
        // §15.4.5: a 304 carries the validators and Cache-Control the 200 would have.
        response.headers.add("Cache-Control", Self.cacheControl)
        response.headers.add("ETag", entityTag)
        response.headers.add("Last-Modified", lastModified)
        return response
    }

    /// §13.2.2: `If-None-Match` first (weak comparison, `*` matches any tag); `If-Modified-Since` only without it,
    /// and only when its date can be read.
    private func isUnchanged(for request: HTTPRequest) -> Bool {
        let tags = request.headers.values("if-none-match")
        if !tags.isEmpty {
            // §13.1.2: the field is a list of entity tags; weak comparison ignores a W/ prefix.
            return tags.flatMap { $0.split(separator: ",") }.contains { candidate in
                let tag = candidate.trimmingCharacters(in: .whitespaces)
                return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == entityTag
            }
        }
        // §13.1.3: the resource has not been modified since the date given.
        guard let since = request.headers["if-modified-since"], let date = HTTPDate.parse(since) else { return false }
        return lastModifiedSecond <= date
    }
}
