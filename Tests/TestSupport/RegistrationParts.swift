import WebAuthnCore

/// The pieces of a registration response `SoftwareAuthenticator` built, before and after encoding, for tests that look inside.
public struct RegistrationParts: Sendable {
    public var clientDataJSON: [UInt8]
    /// The authenticator data as placed in the attestation object (after every mutation hook).
    public var authenticatorData: [UInt8]
    public var attestationObject: [UInt8]
    public var response: RegistrationResponseJSON
}
