import Foundation

/// `POST /session/handoff`: a single-use link, valid 60 seconds, that signs a web view in to this account.
public struct SessionHandoff: Codable, Sendable, Equatable {
    public let url: URL
    public let expiresAt: Date
}
