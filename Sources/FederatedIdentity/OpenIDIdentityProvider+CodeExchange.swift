import Foundation
import HTTPEdge
import JSON
import OpenIDConnect
import OutboundHTTP

extension OpenIDIdentityProvider {
    /// The largest token endpoint reply accepted.
    package static let maximumTokenReplyLength = 65_536
    /// Seconds the exchange may take in all (connect, TLS, reply); it blocks only the request of the flow it completes.
    package static let exchangeTimeoutSeconds: Double = 5

    /// The web flow's client ID: the first configured one (Google: list the web client first).
    package var webClientID: String { settings.clientIDs[0] }

    /// Exchanges the web flow's authorization code at the token endpoint for the ID token (RFC 6749 §4.1.3, with the
    /// PKCE verifier of RFC 7636 §4.5 and, for a confidential client, `client_secret` in the body, §2.3.1, or a signed
    /// client assertion, `private_key_jwt` of OpenID Connect Core §9). A refusal
    /// by the provider (a code for another client, used or expired, a wrong verifier) is `401
    /// invalid_identity_token`; no answer within the deadline, or a 5xx, is `503 identity_provider_unavailable`.
    package func exchange(code: String, verifier: String, redirectURI: String, at endpoint: URL) throws(ServerError) -> String {
        var fields = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("client_id", webClientID),
            ("code_verifier", verifier),
        ]
        if let secret = settings.clientSecret { fields.append(("client_secret", secret)) }
        if let assertionKey {
            // RFC 7523 §2.2: the assertion, and its type, in the body; its aud is this token endpoint (OIDC Core §9).
            let assertion: ClientAssertion
            do {
                assertion = try ClientAssertion(
                    clientID: webClientID,
                    audience: endpoint.absoluteString,
                    key: assertionKey,
                    random: random,
                    time: time
                )
            } catch {
                throw ServerError(.internalError, detail: "\(name): the client assertion could not be signed")
            }
            fields.append(("client_assertion_type", ClientAssertion.assertionType))
            fields.append(("client_assertion", assertion.token))
        }
        var request = HTTPClientAppleService.form(endpoint, fields)
        request.connectTimeoutSeconds = Self.exchangeTimeoutSeconds
        request.deadlineSeconds = Self.exchangeTimeoutSeconds
        request.maximumReplyBodySize = Self.maximumTokenReplyLength
        let reply: HTTPClientReply
        do throws(HTTPClientError) {
            reply = try client.sendAndWait(request)
        } catch {
            log.warning("identity provider \(name): code exchange: no reply (\(error.code))", event: "identity")
            throw ServerError(.identityProviderUnavailable, detail: "\(name): the token endpoint did not answer")
        }
        guard reply.status == 200 else {
            log("identity web sign-in refused (\(name)): the token endpoint answered \(reply.status)", event: "identity")
            throw reply.status >= 500
                ? ServerError(.identityProviderUnavailable, detail: "\(name): token endpoint status \(reply.status)")
                : ServerError(.invalidIdentityToken, detail: "the provider refused the code")
        }
        // RFC 6749 §5.1 and OpenID Connect Core §3.1.3.3: a JSON object with the ID token.
        guard let object = StrictJSONParser.strictValue(reply.body)?.objectValue, let idToken = object["id_token"]?.stringValue else {
            throw ServerError(.invalidIdentityToken, detail: "the token endpoint's answer has no id_token")
        }
        return idToken
    }
}
