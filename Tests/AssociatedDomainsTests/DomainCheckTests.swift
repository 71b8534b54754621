import AssociatedDomains
import ConfigurationReading
import CryptoCore
import Foundation
import HTTPFields
import HTTPServer
import OutboundHTTP
import TestSupport
import Testing

/// `check-domain` against local stand-ins: a domain passkeyd serves correctly passes every check; each way a device
/// would fail (a redirect, an HTML page with 200, a stale CDN copy, a bad certificate, a wrong app or fingerprint, a
/// file that breaks the schema) gives its verdict and exit status; a domain that cannot be reached is "not checked".
struct DomainCheckTests {
    let fixture: DomainCheckFixture

    init() throws {
        fixture = try DomainCheckFixture()
    }

    @Test func aDomainServedByPasskeydPassesEveryCheck() throws {
        let report = try fixture.run()
        #expect(report.exitStatus == 0, "\(report.text)")
        #expect(
            report.checks.map(\.name) == [
                "https", "apple-app-site-association", "apple-app-site-association content", "assetlinks.json", "assetlinks.json content",
                "webauthn", "webauthn content", "passkey-endpoints", "passkey-endpoints content", "app \(DomainCheckFixture.app)",
                "android com.example.app", "Apple CDN copy",
            ]
        )
        #expect(report.checks.allSatisfy { $0.outcome == .pass }, "\(report.text)")
        #expect(report.check("android com.example.app")?.detail.contains(DomainCheckFixture.origin) == true)
    }

    @Test func aRedirectIsTheError() throws {
        var redirect = HTTPResponse(status: 301)
        redirect.headers.add("Location", "https://www.localhost/.well-known/apple-app-site-association")
        fixture.domain.answer("/.well-known/apple-app-site-association", with: redirect)
        let report = try fixture.run()
        #expect(report.exitStatus == 1)
        let check = try #require(report.check("apple-app-site-association"))
        #expect(check.outcome == .fail)
        #expect(check.detail.contains("301 redirecting to https://www.localhost/") && check.detail.contains("never follow a redirect"))
        #expect(report.check("app \(DomainCheckFixture.app)")?.outcome == .fail)
    }

    @Test func anHTMLPageWith200IsRefused() throws {
        let page = HTTPResponse(
            status: 200,
            headers: HTTPHeaders([("Content-Type", "text/html; charset=utf-8")]),
            body: Array("<!doctype html><p>Shop".utf8)
        )
        for path in ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"] { fixture.domain.answer(path, with: page) }
        let report = try fixture.run()
        #expect(report.exitStatus == 1)
        for name in ["apple-app-site-association", "assetlinks.json"] {
            let check = try #require(report.check(name))
            #expect(check.outcome == .fail)
            #expect(check.detail.contains("text/html (an HTML page"), "\(check.detail)")
        }
        #expect(report.check("android com.example.app")?.outcome == .fail)
    }

    @Test func jsonServedWithAnotherTypeIsRefused() throws {
        fixture.domain.answer(
            "/.well-known/webauthn",
            with: HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "text/plain")]), body: Array(#"{"origins": []}"#.utf8))
        )
        let check = try #require(try fixture.run().check("webauthn"))
        #expect(check.outcome == .fail && check.detail.contains("text/plain, not application/json"))
    }

    @Test func aStaleCDNCopyIsReportedWithItsCause() throws {
        fixture.cdn.answer(
            DomainCheckFixture.cdnPath,
            with: DomainCheckFixture.json(#"{"webcredentials": {"apps": ["ABCDE12345.com.example.old"]}}"#)
        )
        let report = try fixture.run()
        #expect(report.exitStatus == 1)
        let check = try #require(report.check("Apple CDN copy"))
        #expect(check.outcome == .fail)
        #expect(check.detail.contains("webcredentials.apps: CDN [ABCDE12345.com.example.old], domain [\(DomainCheckFixture.app)]"))
        #expect(check.detail.contains("applinks only on the domain"))
        #expect(check.detail.contains("until the CDN refreshes") && check.detail.contains("webcredentials:localhost?mode=developer"))
    }

    @Test func aCopyWithTheSameJSONInAnotherLayoutIsTheSame() throws {
        let spaced = String(decoding: fixture.association, as: UTF8.self).replacingOccurrences(of: ":", with: " : ")
        fixture.cdn.answer(DomainCheckFixture.cdnPath, with: DomainCheckFixture.json(spaced))
        #expect(try fixture.run().check("Apple CDN copy")?.outcome == .pass)
    }

    @Test func noCDNCopyYetIsReported() throws {
        fixture.cdn.answer(DomainCheckFixture.cdnPath, with: DomainCheckFixture.json("{}", status: 404))
        let check = try #require(try fixture.run().check("Apple CDN copy"))
        #expect(check.outcome == .fail && check.detail.contains("no copy yet") && check.detail.contains("?mode=developer"))
    }

    @Test func anUnreachableCDNIsNotChecked() throws {
        let port = try LoopbackPort.free()
        let check = try DomainCheck(domain: fixture.domain.origin, apps: [DomainCheckFixture.app], cdnURL: "https://localhost:\(port)/a/v1/localhost")
        let client = try HTTPClient(configuration: HTTPClientConfiguration(tls: try TLSClientContext(caFile: fixture.authority.certificateFile)))
        defer { client.shutDown() }
        let report = check.run(using: client)
        #expect(report.check("Apple CDN copy")?.outcome == .error)
        #expect(report.exitStatus == 2, "nothing is wrong, but not everything could be checked")
    }

    @Test func aCertificateFromAnotherAuthorityFailsAsOnADevice() throws {
        let other = try TestCertificateAuthority(commonName: "another CA")
        let report = try fixture.run(trusting: other.certificateFile)
        #expect(report.exitStatus == 1)
        #expect(report.checks.count == 1, "nothing else is fetched from a domain whose certificate is refused")
        let check = try #require(report.check("https"))
        #expect(check.outcome == .fail)
    }

    @Test func aCertificateForAnotherNameFails() throws {
        let impostor = try DomainStandIn(certificate: try fixture.authority.issue(names: ["other.example"], serialNumber: 3))
        let report = try fixture.run(origin: impostor.origin)
        #expect(report.exitStatus == 1)
        #expect(report.check("https")?.outcome == .fail)
    }

    @Test func anUnreachableDomainCouldNotBeChecked() throws {
        let report = try fixture.run(origin: "https://localhost:\(try LoopbackPort.free())")
        #expect(report.exitStatus == 2)
        #expect(report.checks.map(\.outcome) == [.error])
    }

    @Test func anAppTheFileDoesNotListFails() throws {
        let report = try fixture.run(apps: ["ABCDE12345.com.example.other", "VWXYZ67890.com.example.app"])
        #expect(report.exitStatus == 1)
        #expect(report.check("app ABCDE12345.com.example.other")?.outcome == .fail)
        let otherTeam = try #require(report.check("app VWXYZ67890.com.example.app"))
        #expect(otherTeam.outcome == .fail && otherTeam.detail.contains("another team ID"))
    }

    @Test func anAndroidAppSignedWithAnotherCertificateFails() throws {
        let report = try fixture.run(android: [
            "com.example.app:" + DomainCheckFixture.otherFingerprint, "com.example.other:" + DomainCheckFixture.fingerprint,
        ])
        #expect(report.exitStatus == 1)
        let wrongKey = try #require(report.check("android com.example.app"))
        #expect(wrongKey.outcome == .fail && wrongKey.detail.contains("does not list") && wrongKey.detail.contains("Play App Signing"))
        #expect(report.check("android com.example.other")?.detail.contains("no statement names it") == true)
    }

    @Test func anAndroidAppWithoutLoginCredentialsFails() throws {
        fixture.domain.answer(
            "/.well-known/assetlinks.json",
            with: DomainCheckFixture.json(
                #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "com.example.app", "sha256_cert_fingerprints": ["\#(DomainCheckFixture.fingerprint)"]}}]"#
            )
        )
        let check = try #require(try fixture.run().check("android com.example.app"))
        #expect(check.outcome == .fail && check.detail.contains("get_login_creds"))
    }

    /// Files that break the schema fail with the member at fault; a fingerprint not in Google's form is a warning.
    @Test(arguments: [
        ("/.well-known/apple-app-site-association", #"{"applinks": 42}"#, "apple-app-site-association content", "applinks: must be an object"),
        (
            "/.well-known/apple-app-site-association", #"{"webcredentials": {"apps": ["com.example.app"]}}"#, "apple-app-site-association content",
            "webcredentials.apps"
        ),
        ("/.well-known/apple-app-site-association", #"{"activitycontinuation": {"apps": []}}"#, "apple-app-site-association content", "none of"),
        ("/.well-known/assetlinks.json", #"{"relation": []}"#, "assetlinks.json content", "not a list of statements"),
        (
            "/.well-known/assetlinks.json",
            #"[{"relation": ["delegate_permission/common.get_login_creds"], "target": {"namespace": "android_app", "package_name": "a", "sha256_cert_fingerprints": []}}]"#,
            "assetlinks.json content", "[0].target.package_name"
        ),
        (
            "/.well-known/assetlinks.json", #"[{"relation": ["x"], "target": {"namespace": "web", "site": "https://localhost"}}]"#,
            "assetlinks.json content", "[0].relation"
        ),
        (
            "/.well-known/webauthn", #"{"origins": ["http://example.co.uk"]}"#, "webauthn content",
            "origins: http://example.co.uk is not an https:// origin"
        ),
        (
            "/.well-known/webauthn", #"{"origins": ["https://example.co.uk/login"]}"#, "webauthn content",
            "origins: https://example.co.uk/login has a path"
        ),
        (
            "/.well-known/passkey-endpoints", #"{"enroll": "javascript:alert(1)"}"#, "passkey-endpoints content",
            "enroll: javascript:alert(1) is not an https:// URL"
        ),
        ("/.well-known/passkey-endpoints", #"{"manage": "/account"}"#, "passkey-endpoints content", "manage: /account is not an absolute URL"),
        ("/.well-known/passkey-endpoints", "[]", "passkey-endpoints content", "not a JSON object"),
        ("/.well-known/webauthn", "{\"origins\": [", "webauthn", "is not JSON"),
    ])
    func aFileThatBreaksTheSchemaFails(path: String, body: String, check name: String, detail: String) throws {
        fixture.domain.answer(path, with: DomainCheckFixture.json(body))
        let report = try fixture.run()
        let check = try #require(report.check(name), "\(report.text)")
        #expect(check.outcome == .fail)
        #expect(check.detail.contains(detail), "\(check.detail)")
        #expect(report.exitStatus == 1)
    }

    @Test func warningsDoNotFailTheCheck() throws {
        fixture.domain.answer(
            "/.well-known/assetlinks.json",
            with: DomainCheckFixture.json(
                #"[{"relation": ["delegate_permission/common.get_login_creds"], "target": {"namespace": "android_app", "package_name": "com.example.app", "sha256_cert_fingerprints": ["\#(DomainCheckFixture.fingerprint.lowercased())"]}}]"#
            )
        )
        let origins = ["https://a.com", "https://b.com", "https://c.com", "https://d.com", "https://e.com", "https://f.com"]
        fixture.domain.answer(
            "/.well-known/webauthn",
            with: DomainCheckFixture.json(#"{"origins": [\#(origins.map { "\"\($0)\"" }.joined(separator: ","))]}"#)
        )
        fixture.domain.answer("/.well-known/passkey-endpoints", with: DomainCheckFixture.json(#"{"enroll": "https://elsewhere.example/new"}"#))
        let report = try fixture.run()
        #expect(report.check("assetlinks.json content")?.outcome == .warn)
        #expect(report.check("webauthn content")?.detail.contains("6 registrable-domain labels") == true)
        #expect(report.check("passkey-endpoints content")?.detail.contains("neither this domain nor a related origin") == true)
        #expect(report.check("android com.example.app")?.outcome == .pass, "the fingerprint is the same bytes")
        #expect(report.exitStatus == 0, "\(report.text)")
    }

    @Test func anOversizedFileFails() throws {
        let apps = (0..<6000).map { "\"ABCDE12345.com.example.app\($0)\"" }.joined(separator: ",")
        fixture.domain.answer("/.well-known/apple-app-site-association", with: DomainCheckFixture.json(#"{"webcredentials": {"apps": [\#(apps)]}}"#))
        let check = try #require(try fixture.run().check("apple-app-site-association"))
        #expect(check.outcome == .fail && check.detail.contains("Apple reads at most 131072"))
    }

    @Test func aMissingFileFailsOnlyWhenAnAppNeedsIt() throws {
        fixture.domain.answer("/.well-known/assetlinks.json", with: DomainCheckFixture.json("{}", status: 404))
        #expect(try fixture.run().check("assetlinks.json")?.outcome == .fail)
        let withoutAndroid = try fixture.run(android: [])
        #expect(withoutAndroid.check("assetlinks.json")?.outcome == .skip)
        #expect(withoutAndroid.exitStatus == 0)
    }

    @Test func aDomainThatPublishesNothingFails() throws {
        let empty = try DomainStandIn(certificate: try fixture.authority.issue(names: ["localhost"], serialNumber: 4))
        let report = try fixture.run(apps: [], android: [], origin: empty.origin)
        #expect(report.exitStatus == 1)
        #expect(report.check("associated domains")?.outcome == .fail)
    }

    @Test func theJSONFormHasEveryCheck() throws {
        let report = try fixture.run()
        let document = try #require(try JSONSerialization.jsonObject(with: Data(report.json.utf8)) as? [String: Any])
        #expect(document["origin"] as? String == fixture.domain.origin)
        #expect(document["verdict"] as? String == "ok")
        #expect(document["exitStatus"] as? Int == 0)
        let checks = try #require(document["checks"] as? [[String: String]])
        #expect(checks.count == report.checks.count)
        #expect(checks.first == ["check": "https", "outcome": "pass", "detail": report.checks[0].detail])
    }

    @Test(arguments: [
        ("example.com/path", "DOMAIN"), ("http://example.com", "DOMAIN"), ("https://example.com?x", "DOMAIN"),
    ])
    func badInputsNameTheirArgument(domain: String, key: String) {
        #expect { try DomainCheck(domain: domain) } throws: { ($0 as? ConfigurationError)?.key == key }
    }

    @Test func badAppsAndFingerprintsNameTheirOption() {
        #expect { try DomainCheck(domain: "https://example.com", apps: ["com.example.app"]) } throws: { ($0 as? ConfigurationError)?.key == "--app" }
        #expect { try DomainCheck(domain: "https://example.com", android: ["com.example.app"]) } throws: {
            ($0 as? ConfigurationError)?.key == "--android"
        }
        #expect { try DomainCheck(domain: "https://example.com", android: ["com.example.app:AB:CD"]) } throws: {
            ($0 as? ConfigurationError)?.key == "--android"
        }
        #expect { try DomainCheck(domain: "https://example.com", cdnURL: "http://cdn.example/a") } throws: {
            ($0 as? ConfigurationError)?.key == "--cdn-url"
        }
        #expect(throws: Never.self) { try DomainCheck(domain: "example.com", android: [DomainCheckFixture.android.lowercased()]) }
    }
}
