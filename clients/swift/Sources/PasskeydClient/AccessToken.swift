import Foundation

/// An access token for the app's own API (`POST /session/token`): a JWT its backend verifies against passkeyd's JWKS.
public struct AccessToken: Codable, Sendable, Equatable {
    public let accessToken: String
    public let accessTokenExpiresAt: Date
    /// `"Bearer"`: send it as `Authorization: Bearer <accessToken>`.
    public let tokenType: String
}
