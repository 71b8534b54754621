import Foundation

/// What an upgrade fixture holds besides its store: the secrets a device, an app and a backend kept when the release
/// wrote it (passkeys' private keys, session and access tokens, recovery codes, refresh tokens), so that every later
/// release's tests can show that each still works. Written once by `UpgradeFixtureWriter`, never edited.
struct UpgradeManifest: Codable {
    /// The release that wrote the store, and its commit.
    var release: String
    var commit: String
    /// The store's driver: `sqlite` or `postgres`.
    var driver: String
    /// The manual clock's time when the store was closed (seconds since 1970).
    var writtenAt: Double
    var passkeyAccounts: [PasskeyAccount]
    var appleAccounts: [AppleAccount]
    var recovery: Recovery
    var openID: OpenIDGrant
    var webhooks: Webhooks

    /// An account registered with one passkey of `algorithm`, then signed in once more.
    struct PasskeyAccount: Codable {
        var username: String
        /// base64url
        var userID: String
        var credential: Credential
        var sessionTokens: [String]
        var accessTokens: [AccessToken]
    }

    struct Credential: Codable {
        /// The COSE algorithm's number.
        var algorithm: Int
        /// base64url
        var id: String
        var privateKeyPEM: String
        /// The last signature counter the authenticator reported.
        var signCount: UInt32
    }

    struct AccessToken: Codable {
        var token: String
        /// `exp`, seconds since 1970.
        var expiresAt: Double
    }

    /// A Sign in with Apple identity, with the refresh token the stand-in issued for its authorization code (stored
    /// encrypted under `apple-refresh-token-key`).
    struct AppleAccount: Codable {
        var subject: String
        /// base64url
        var userID: String
        var sessionToken: String
        var refreshToken: String
        /// The passkey account it was linked to, when it was.
        var linkedTo: String?
    }

    /// Recovery codes of `username`: `used` was spent before the store was closed, `unused` were not.
    struct Recovery: Codable {
        var username: String
        var used: String
        var unused: [String]
    }

    /// A grant of the OpenID provider's public client `clientID` for `username`.
    struct OpenIDGrant: Codable {
        var clientID: String
        var username: String
        var refreshToken: String
        var accessToken: AccessToken
    }

    /// Deliveries left to each endpoint: `pending` (to `pendingEndpoint`, refused with 503 so far) by `webhook-id`, and
    /// how many were `dead` (to `deadEndpoint`, answered 410).
    struct Webhooks: Codable {
        var pendingEndpoint: String
        var pending: [String]
        var deadEndpoint: String
        var dead: Int
    }

    static func load(_ path: String) throws -> UpgradeManifest {
        try JSONDecoder().decode(UpgradeManifest.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func write(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path))
    }
}
