import WebAuthnCore

/// The pieces of an assertion `SoftwareAuthenticator` built, before and after encoding, for tests that look inside.
public struct AssertionParts: Sendable {
    public var clientDataJSON: [UInt8]
    /// The authenticator data as sent (after every mutation hook).
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    public var response: AuthenticationResponseJSON
}
