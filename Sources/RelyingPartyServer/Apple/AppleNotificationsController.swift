import Accounts
import AppleSignIn
import CryptoCore
import FederatedIdentity
import Foundation
import HTTPEdge
import HTTPServer
import JSON
import Observability

/// Apple's server-to-server notifications: consent revoked, Apple account deleted, email relay disabled or enabled.
struct AppleNotificationsController: Sendable {
    /// Sign in with Apple; nil without an `apple` block.
    let apple: AppleIntegration?
    let time: any TimeSource
    /// Applies each notification (Apple's `account-delete` of an account's last way in deletes the account).
    let accountService: AccountService
    let log: Logger

    /// `POST /auth/apple/notifications`: Apple's server-to-server events, each applied once and in order per `sub`, in
    /// one transaction with its bookkeeping; 200 for every verified notification, whatever it changed.
    func receive(_ request: HTTPRequest, _ context: RouteContext) throws(ServerError) -> HTTPResponse {
        let apple = try AppleIntegration.configured(self.apple)
        guard StrictJSONParser.isStrict(request.body) else { throw ServerError(.invalidJSON, detail: "not strict JSON") }
        guard let notification = try apple.verifyNotification(request.body) else { return JSONBody.ok(["received": true]) }
        let now = time.now
        // The jti identifies the notification; without one, its signed payload does.
        let identifier = notification.jwtID.map { "jti:" + $0 } ?? "payload:" + Hex.encode(DigestAlgorithm.sha256.hash(request.body))
        let key = DigestAlgorithm.sha256.hash(Array("passkeyd apple notification:\(identifier)".utf8))
        let until = max(notification.expiresAt, now).addingTimeInterval(apple.verifier.leewaySeconds)
        let event = notification.event
        let outcome = try accountService.applyAppleNotification(event, replayKey: key, until: until)
        log("apple notification: \(event.typeName) (\(outcome.rawValue))", event: "apple")
        return JSONBody.ok(["received": true])
    }
}

extension ServerNotificationEvent {
    /// Apple's name of the event type, for the log.
    var typeName: String {
        switch self {
        case .consentRevoked: "consent-revoked"
        case .accountDeleted: "account-delete"
        case .emailDisabled: "email-disabled"
        case .emailEnabled: "email-enabled"
        }
    }
}
