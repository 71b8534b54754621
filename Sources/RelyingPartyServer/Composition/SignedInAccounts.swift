import HTTPEdge
import HTTPServer
import Storage

/// The account of a request that the route table resolved a session for: what every handler of a signed-in person
/// starts with.
struct SignedInAccounts: Sendable {
    let store: any PasskeyStore
    let settings: SettingsInForce

    /// The signed-in user of a request, or `401 not_signed_in`. Cookie-authenticated writes also pass the Origin check.
    func user(
        _ request: HTTPRequest,
        _ context: RouteContext,
        writing: Bool
    ) throws(ServerError) -> (user: UserRecord, signedIn: SessionService.SignedIn) {
        guard let signedIn = context.session else { throw ServerError(.notSignedIn) }
        if writing { try requireSameOrigin(request, credential: signedIn.credential) }
        guard let user = try storage({ try store.user(id: signedIn.session.userID) }) else { throw ServerError(.notSignedIn) }
        return (user, signedIn)
    }

    /// Cookie-authenticated writes must come from one of the relying party's origins (CSRF defence in depth), and no
    /// write is made with an access token (which is for the app's API, not for managing the account).
    func requireSameOrigin(_ request: HTTPRequest, credential: SessionService.Credential) throws(ServerError) {
        guard credential != .accessToken else { throw ServerError(.insufficientScope) }
        guard credential == .cookie else { return }
        guard let origin = request.headers["origin"], settings.relyingParty.origins.contains(origin) else {
            throw ServerError(.crossOriginWrite)
        }
    }
}
