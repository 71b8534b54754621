import Foundation

/// An authorization code waiting to be exchanged for a refresh token. Held in memory only: Apple's codes are valid
/// for five minutes, so a code cannot outlive a restart usefully.
package struct PendingCodeExchange: Sendable {
    package let subject: String
    package let clientID: String
    package let code: String
    /// The `redirect_uri` of the authorization, which Apple's token endpoint requires for a web flow's code; nil for
    /// an app's code.
    package let redirectURI: String?
    /// After this the code is useless and the exchange is dropped.
    package let expiresAt: Date
    package var notBefore: Date
    package var attempts = 0
}
