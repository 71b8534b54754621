import Foundation
import OpenIDConnect
import Testing

/// The discovery document reader: the members passkeyd uses, the issuer equal to the configured one, every refusal.
@Suite struct DiscoveryDocumentTests {
    static let google = #"""
        {"issuer":"https://accounts.google.com","authorization_endpoint":"https://accounts.google.com/o/oauth2/v2/auth",
         "token_endpoint":"https://oauth2.googleapis.com/token","jwks_uri":"https://www.googleapis.com/oauth2/v3/certs",
         "response_types_supported":["code","id_token"],"id_token_signing_alg_values_supported":["RS256"]}
        """#

    private func code(_ json: String, issuer: IssuerIdentifier = .google) -> OpenIDConnectError.Code? {
        do {
            _ = try DiscoveryDocument(json: Array(json.utf8), expectedIssuer: issuer)
            return nil
        } catch {
            return error.code
        }
    }

    private func edited(_ name: String, _ value: String) -> String {
        Self.google.replacingOccurrences(
            of: #""\#(name)":"[^"]*""#,
            with: value.isEmpty ? #""\#(name)x":1"# : #""\#(name)":\#(value)"#,
            options: .regularExpression
        )
    }

    @Test func googlesDocumentIsRead() throws {
        let document = try DiscoveryDocument(json: Array(Self.google.utf8), expectedIssuer: .google)
        #expect(document.issuer == "https://accounts.google.com")
        #expect(document.jwksURL.absoluteString == "https://www.googleapis.com/oauth2/v3/certs")
        #expect(document.authorizationEndpoint?.absoluteString == "https://accounts.google.com/o/oauth2/v2/auth")
        #expect(document.tokenEndpoint?.absoluteString == "https://oauth2.googleapis.com/token")
    }

    @Test func microsoftsTemplateIssuerMustBeTheConfiguredTemplate() throws {
        let template = "https://login.microsoftonline.com/{tenantid}/v2.0"
        let json = edited("issuer", #""\#(template)""#)
        #expect(code(json, issuer: try IssuerIdentifier(configured: template)) == nil)
        #expect(code(json, issuer: try IssuerIdentifier(configured: "https://login.microsoftonline.com/common/v2.0")) == .discoveryIssuerMismatch)
    }

    @Test func aDifferentIssuerIsRefused() throws {
        #expect(code(edited("issuer", #""https://evil.example""#)) == .discoveryIssuerMismatch)
        #expect(code(edited("issuer", #""https://accounts.google.com/""#)) == .discoveryIssuerMismatch)
        #expect(code(Self.google, issuer: try IssuerIdentifier(configured: "https://id.example.com")) == .discoveryIssuerMismatch)
    }

    @Test func missingOrUnsafeMembersAreRefused() throws {
        for name in ["issuer", "jwks_uri", "authorization_endpoint", "token_endpoint"] {
            #expect(code(edited(name, "")) == .discoveryMalformed)
        }
        // Both endpoints absent: an issuer of ID tokens only (Firebase's), for native sign-in.
        let firebase =
            #"{"issuer":"https://securetoken.google.com/p","jwks_uri":"https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com","response_types_supported":["id_token"]}"#
        let document = try DiscoveryDocument(
            json: Array(firebase.utf8),
            expectedIssuer: try IssuerIdentifier(configured: "https://securetoken.google.com/p")
        )
        #expect(document.authorizationEndpoint == nil && document.tokenEndpoint == nil)
        #expect(code(edited("jwks_uri", #""http://www.googleapis.com/oauth2/v3/certs""#)) == .discoveryMalformed)
        #expect(code(edited("token_endpoint", "5")) == .discoveryMalformed)
        #expect(code(edited("token_endpoint", #""/relative""#)) == .discoveryMalformed)
        #expect(code(edited("jwks_uri", #""https://user:pw@example.com/keys""#)) == .discoveryMalformed)
        #expect(code(edited("jwks_uri", #""http://127.0.0.1:9000/keys""#)) == nil)
    }

    @Test func malformedDocumentsAreRefused() {
        #expect(code("") == .discoveryMalformed)
        #expect(code("[]") == .discoveryMalformed)
        #expect(code(#"{"issuer":"https://accounts.google.com","issuer":"https://accounts.google.com"}"#) == .discoveryMalformed)
        #expect(code(Self.google + String(repeating: " ", count: DiscoveryDocument.maximumDocumentLength)) == .discoveryMalformed)
    }
}
