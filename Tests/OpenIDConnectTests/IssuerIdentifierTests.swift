import Foundation
import OpenIDConnect
import Testing

/// The configured issuer rules: exact issuers, and Microsoft Entra's `{tenantid}` template checked against `tid`.
@Suite struct IssuerIdentifierTests {
    let provider = TestProvider.shared
    let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
    let tenant = "9188040d-6c67-4c5b-b112-36a304b66dad"

    private func failure(_ token: String, issuer: IssuerIdentifier) throws -> OpenIDConnectError.Code? {
        do {
            _ = try TestProvider.verifier(issuer: issuer).verify(token, keys: try provider.keySet(), rawNonce: TestProvider.rawNonce)
            return nil
        } catch let error as OpenIDConnectError {
            return error.code
        }
    }

    @Test func configuredIssuersAreReadOrRefused() throws {
        #expect(try IssuerIdentifier(configured: "https://id.example.com") == .exact(["https://id.example.com"]))
        #expect(try IssuerIdentifier(configured: "http://127.0.0.1:8443/issuer") == .exact(["http://127.0.0.1:8443/issuer"]))
        #expect(try IssuerIdentifier(configured: template) == .tenantTemplate(template))
        for refused in [
            "http://id.example.com", "id.example.com", "https://id.example.com?x=1", "https://id.example.com#f",
            "https://{tenantid}.example.com/v2.0", "https://login.example.com/{tenantid}/{tenantid}", "https://login.example.com/{tenant}",
            "https://user:pass@id.example.com", "ftp://id.example.com", String(repeating: "a", count: 600),
            "http://127.example.com", "http://127.0.0.1.example.com", "http://127.0.0.256",
        ] {
            #expect(throws: OpenIDConnectError.self) { try IssuerIdentifier(configured: refused) }
        }
    }

    @Test func onlyLoopbackHostsCount() {
        for host in ["127.0.0.1", "127.255.3.9", "localhost", "::1", "[::1]"] { #expect(IssuerIdentifier.isLoopback(host), "\(host)") }
        for host in ["127.example.com", "127.0.0.1.nip.io", "128.0.0.1", "127.0.0", "127.0.0.999", "127.0.0.+1", "example.com", ""] {
            #expect(!IssuerIdentifier.isLoopback(host), "\(host)")
        }
    }

    @Test func tenantTemplateIssuerNeedsTheTokensTenant() throws {
        let issuer = try IssuerIdentifier(configured: template)
        let good = "https://login.microsoftonline.com/\(tenant)/v2.0"
        #expect(
            try failure(
                try provider.token {
                    $0["iss"] = good
                    $0["tid"] = tenant
                },
                issuer: issuer
            ) == nil
        )
        // The iss of another tenant than the token's tid.
        let other = "https://login.microsoftonline.com/00000000-0000-0000-0000-000000000001/v2.0"
        #expect(
            try failure(
                try provider.token {
                    $0["iss"] = other
                    $0["tid"] = tenant
                },
                issuer: issuer
            ) == .wrongIssuer
        )
        // No tid, or one that is not a GUID (a path fragment could otherwise be spliced in).
        #expect(
            try failure(
                try provider.token {
                    $0["iss"] = good
                    $0["tid"] = nil
                },
                issuer: issuer
            ) == .wrongTenant
        )
        #expect(
            try failure(
                try provider.token {
                    $0["iss"] = "https://login.microsoftonline.com/a/b/v2.0"
                    $0["tid"] = "a/b"
                },
                issuer: issuer
            ) == .wrongTenant
        )
        // The template itself is not an issuer.
        #expect(
            try failure(
                try provider.token {
                    $0["iss"] = template
                    $0["tid"] = tenant
                },
                issuer: issuer
            ) == .wrongIssuer
        )
    }
}
