import HTTPEdge

/// How a web flow's answer ended (`WebSignInFlow.complete`) when it was not refused.
enum WebSignInOutcome: Sendable {
    /// The identity signed in: the session to set.
    case signedIn(SessionService.Issued)
    /// The person ended the flow at the provider: the browser goes to the cancel path with this code.
    case cancelled(ServerError.Code)
}
