import ConfigurationReading
import CryptoCore
import Foundation
import HTTPFields
import JSON
import OutboundHTTP

/// `passkeyd check-domain`: fetches a domain's associated-domain files as a device does (through the one
/// `HTTPClient`: certificate verified, no redirect followed), checks each file's status, type, size and schema with the
/// rules passkeyd itself publishes by, checks that they agree with each other and with the apps given, and compares
/// Apple's CDN copy of `apple-app-site-association` with the live one.
public struct DomainCheck: Sendable {
    /// What devices accept: Apple reads at most 128 KB of apple-app-site-association; the other files get the same bound.
    static let maximumFileSize = WellKnownFiles.appleSizeLimit
    /// Apple's CDN, which iOS and macOS devices fetch the file from (unless the entitlement says `?mode=developer`).
    public static let appleCDN = "https://app-site-association.cdn-apple.com/a/v1/"

    /// An Android app to check: its application ID and the fingerprint of the certificate it is signed with.
    struct AndroidTarget: Sendable {
        let packageName: String
        let fingerprint: CertificateFingerprint
    }

    /// `https://host[:port]`.
    public let origin: String
    let host: String
    let apps: [String]
    let androidApps: [AndroidTarget]
    let cdnURL: String
    let userAgent: String
    let timeoutSeconds: Double

    /// Checks the inputs; each error names the option at fault (`--app`).
    public init(
        domain: String,
        apps: [String] = [],
        android: [String] = [],
        cdnURL: String? = nil,
        userAgent: String = "passkeyd check-domain",
        timeoutSeconds: Double = 15
    ) throws(ConfigurationError) {
        let text = domain.contains("://") ? domain : "https://" + domain
        guard let components = URLComponents(string: text), components.scheme == "https", let host = components.host, !host.isEmpty,
            components.user == nil, components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil
        else { throw ConfigurationError(.invalidValue, key: "DOMAIN", "\(domain.prefix(100)) is not https://domain (a port is allowed, no path)") }
        self.host = host.lowercased()
        origin = "https://" + self.host + (components.port.map { ":\($0)" } ?? "")
        for app in apps where !AppleAppSiteAssociation.isAppIdentifier(app) {
            throw ConfigurationError(
                .invalidValue,
                key: "--app",
                "\(app.prefix(100)) is not TEAMID.bundle.id (a 10-character team ID, a dot, a bundle ID)"
            )
        }
        self.apps = apps
        var targets: [AndroidTarget] = []
        for value in android {
            let parts = value.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, AndroidApp.isPackageName(String(parts[0])), let fingerprint = CertificateFingerprint(String(parts[1])) else {
                throw ConfigurationError(
                    .invalidValue,
                    key: "--android",
                    "\(value.prefix(140)) is not PACKAGE:FINGERPRINT (an application ID, a colon, the SHA-256 of the signing certificate)"
                )
            }
            targets.append(AndroidTarget(packageName: String(parts[0]), fingerprint: fingerprint))
        }
        androidApps = targets
        let cdn = cdnURL ?? Self.appleCDN + self.host
        do throws(HTTPClientError) {
            try HTTPClient.validate(url: cdn)
        } catch {
            throw ConfigurationError(.invalidValue, key: "--cdn-url", error.reason)
        }
        self.cdnURL = cdn
        self.userAgent = userAgent
        self.timeoutSeconds = timeoutSeconds
    }

    /// Runs every check, blocking the calling thread on `client` (a command-line tool's thread, never an event loop).
    /// The first request also checks the connection: when it cannot be made (or the certificate is refused), nothing
    /// else is fetched from the domain, since every file would fail the same way.
    public func run(using client: HTTPClient) -> DomainCheckReport {
        var report = DomainCheckReport(origin: origin)
        let associationPath = "/.well-known/apple-app-site-association"
        let first = get(origin + associationPath, using: client)
        switch first {
        case .failure(let error):
            report.record("https", Self.isDomainFault(error) ? .fail : .error, error.reason)
            return report
        case .success(let reply):
            let tls = reply.tls.map { "\($0.protocolVersion), certificate for \($0.serverName) verified" } ?? "no TLS"
            report.record("https", .pass, tls)
        }
        let association = fetch(
            "apple-app-site-association",
            path: associationPath,
            neededFor: apps.isEmpty ? nil : "the apps' passkeys (webcredentials)",
            reply: first,
            using: client,
            into: &report
        )
        let associationContent = association.flatMap { checkAssociation($0, into: &report) }
        let links = fetch(
            "assetlinks.json",
            path: "/.well-known/assetlinks.json",
            neededFor: androidApps.isEmpty ? nil : "the Android apps' passkeys (get_login_creds)",
            using: client,
            into: &report
        )
        let statements = links.flatMap { checkAssetLinks($0, into: &report) }
        let related = fetch("webauthn", path: "/.well-known/webauthn", neededFor: nil, using: client, into: &report)
        let relatedOrigins = related.flatMap { checkRelatedOrigins($0, into: &report) }
        let endpoints = fetch("passkey-endpoints", path: "/.well-known/passkey-endpoints", neededFor: nil, using: client, into: &report)
        if let endpoints { checkPasskeyEndpoints(endpoints, relatedOrigins: relatedOrigins, into: &report) }
        checkApps(associationContent, into: &report)
        checkAndroidApps(statements, into: &report)
        if association != nil || !apps.isEmpty { compareWithAppleCDN(association, using: client, into: &report) }
        if [association, links, related, endpoints].allSatisfy({ $0 == nil }) && !report.checks.contains(where: { $0.outcome == .fail }) {
            report.record("associated domains", .fail, "\(origin) publishes none of the four files")
        }
        return report
    }

    /// A fetched file, decoded.
    struct Fetched {
        let json: JSONValue
    }

    /// GETs `path` as a device does and records one check for the transfer; the decoded JSON when it passes.
    func fetch(
        _ name: String,
        path: String,
        neededFor need: String?,
        reply fetched: Result<HTTPClientReply, HTTPClientError>? = nil,
        using client: HTTPClient,
        into report: inout DomainCheckReport
    ) -> Fetched? {
        let url = origin + path
        let reply: HTTPClientReply
        switch fetched ?? get(url, using: client) {
        case .failure(let error):
            report.record(name, Self.isDomainFault(error) ? .fail : .error, "\(url) could not be fetched: \(error.reason)")
            return nil
        case .success(let answer):
            reply = answer
        }
        if (300..<400).contains(reply.status) {
            report.record(
                name,
                .fail,
                "\(url) answers \(reply.status) redirecting to \(reply.location.map { String($0.prefix(200)) } ?? "(no Location)"): "
                    + "devices never follow a redirect for this file; serve it at this URL"
            )
            return nil
        }
        if reply.status == 404 || reply.status == 410 {
            if let need {
                report.record(name, .fail, "\(url) is not published (\(reply.status)); it is needed for \(need)")
            } else {
                report.record(name, .skip, "not published (\(reply.status))")
            }
            return nil
        }
        guard reply.status == 200 else {
            report.record(name, .fail, "\(url) answers \(reply.status); devices accept only 200")
            return nil
        }
        let type = reply.headers["Content-Type"].map { $0.split(separator: ";").first.map(String.init) ?? $0 }?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            let page =
                reply.body.first(where: { !Self.isWhitespace($0) }) == UInt8(ascii: "<") ? " (an HTML page: a catch-all route answers this path)" : ""
            report.record(name, .fail, "\(url) is served as \(type ?? "(no Content-Type)")\(page), not application/json")
            return nil
        }
        guard reply.body.count <= Self.maximumFileSize else {
            report.record(name, .fail, "\(url) is \(reply.body.count) bytes; Apple reads at most \(Self.maximumFileSize)")
            return nil
        }
        guard let json = try? JSONDecoder().decode(JSONValue.self, from: Data(reply.body)) else {
            report.record(name, .fail, "\(url) is not JSON")
            return nil
        }
        report.record(name, .pass, "200, application/json, \(reply.body.count) bytes, no redirect")
        return Fetched(json: json)
    }

    func get(_ url: String, using client: HTTPClient) -> Result<HTTPClientReply, HTTPClientError> {
        let request = HTTPClientRequest(
            url: url,
            headers: HTTPHeaders([("User-Agent", userAgent)]),
            connectTimeoutSeconds: timeoutSeconds,
            deadlineSeconds: timeoutSeconds,
            maximumReplyBodySize: 1_048_576
        )
        do throws(HTTPClientError) {
            return .success(try client.sendAndWait(request))
        } catch {
            return .failure(error)
        }
    }

    /// Whether a failed fetch is the domain's fault (its certificate, its TLS, its reply), which a device fails on too,
    /// rather than the path to it (name resolution, connection, time).
    static func isDomainFault(_ error: HTTPClientError) -> Bool {
        let faults: [HTTPClientError.Code] = [
            .tlsHandshakeFailed, .certificateUntrusted, .certificateExpired, .certificateNotYetValid,
            .certificateInvalid, .hostnameMismatch, .replyMalformed, .replyTooLarge,
        ]
        return faults.contains(error.code)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
