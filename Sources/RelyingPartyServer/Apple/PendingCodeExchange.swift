import Foundation

/// An authorization code waiting to be exchanged for a refresh token. Held in memory only: Apple's codes are valid
/// for five minutes, so a code cannot outlive a restart usefully.
struct PendingCodeExchange: Sendable {
    let subject: String
    let clientID: String
    let code: String
    /// The `redirect_uri` of the authorization, which Apple's token endpoint requires for a web flow's code; nil for
    /// an app's code.
    let redirectURI: String?
    /// After this the code is useless and the exchange is dropped.
    let expiresAt: Date
    var notBefore: Date
    var attempts = 0
}
