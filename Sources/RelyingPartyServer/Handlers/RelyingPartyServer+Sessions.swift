import CryptoCore
import Foundation
import HTTPServer
import Storage

extension RelyingPartyServer {
    /// The session response shared by registration and authentication, for a session already stored.
    func signedIn(user: UserRecord, credentialID: [UInt8], issued: SessionService.Issued) -> HTTPResponse {
        var response = JSONBody.ok(
            SignedInResponse(
                verified: true,
                credentialId: Base64URL.encode(credentialID),
                user: .init(id: Base64URL.encode(user.id), name: user.name, displayName: user.displayName),
                token: issued.token,
                expiresAt: issued.expiresAt
            )
        )
        response.headers.add("Set-Cookie", sessions.cookie(for: issued))
        return response
    }

    struct SignedInResponse: Encodable {
        struct User: Encodable {
            let id: String
            let name: String
            let displayName: String
        }

        let verified: Bool
        let credentialId: String
        let user: User
        let token: String
        let expiresAt: Date
    }

    /// Cookie-authenticated writes must come from one of the relying party's origins (CSRF defence in depth).
    func requireSameOrigin(_ request: HTTPRequest, credential: SessionService.Credential) throws(ServerError) {
        guard credential == .cookie else { return }
        guard let origin = request.headers["origin"], relyingParty.origins.contains(origin) else {
            throw ServerError(.crossOriginWrite)
        }
    }
}
