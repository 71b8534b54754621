import AccessTokens
import CryptoCore
import Foundation
import HTTPEdge

extension AccessTokenService {
    /// The tokens of a token response of the OpenID provider: an access token for the grant's client and an ID token
    /// bound to it (`at_hash`), both signed with the current key.
    func mintOpenIDTokens(for subject: OpenIDGrantSubject) throws(ServerError) -> (accessToken: String, expiresAt: Date, idToken: String) {
        let now = time.now
        guard let key = try freshRing(at: now).signingKey(at: now) else {
            throw ServerError(.storageUnavailable, detail: "no signing key is active")
        }
        do {
            let access = try minter.mintClientAccessToken(for: subject, with: key, now: now)
            let idToken = try minter.mintIDToken(for: subject, accessToken: access.token, with: key, now: now)
            return (access.token, access.expiresAt, idToken)
        } catch {
            throw ServerError(.internalError, detail: "minting the OpenID tokens failed: \(error.code)")
        }
    }

    /// The claims of an access token the OpenID provider minted for one of `clientIDs` (signature, `typ`, `iss`, times,
    /// `aud` one of the clients), or nil with the rule that failed. Whether its grant still exists is the caller's to check.
    func openIDClaims(of token: String, clientIDs: [String]) throws(ServerError) -> (claims: AccessTokenClaims?, failure: String?) {
        let now = time.now
        let ring = try freshRing(at: now)
        guard !clientIDs.isEmpty else { return (nil, "no OpenID client is configured") }
        return AccessTokenVerifier(issuer: issuer, audiences: clientIDs, ring: ring, highSAcceptedBefore: verifier.highSAcceptedBefore)
            .verify(token, now: now)
    }
}
