import CryptoCore
import Foundation
import HTTPServer
import Observability
import Storage

extension RelyingPartyServer {
    /// The answer of a sign-in (`SignInAnswers.answer`).
    func signedIn(
        _ answer: SignedInResponse,
        user: UserRecord,
        issued: SessionService.Issued?,
        continuing current: SessionRecord? = nil
    ) throws(ServerError) -> HTTPResponse {
        try signInAnswers.answer(answer, user: user, issued: issued, continuing: current)
    }

    /// The passkey ceremonies' answer (`SignInAnswers.passkey`).
    func signedIn(user: UserRecord, credentialID: [UInt8], issued: SessionService.Issued) throws(ServerError) -> HTTPResponse {
        try signInAnswers.passkey(user: user, credentialID: credentialID, issued: issued)
    }

    /// The signed-in user of a request the route table resolved, or `401 not_signed_in` (`SignedInAccounts.user`).
    func signedInUser(
        _ request: HTTPRequest,
        _ context: RouteContext,
        writing: Bool
    ) throws(ServerError) -> (
        user: UserRecord, signedIn: SessionService.SignedIn
    ) {
        try accounts.user(request, context, writing: writing)
    }
}
