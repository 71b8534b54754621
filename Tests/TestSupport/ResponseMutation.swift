import CBOR

/// Hooks that change a response while `SoftwareAuthenticator` builds it. Hooks marked "before signing" change
/// what the signature covers (so the signature still verifies); hooks marked "after signing" change bytes the
/// signature no longer matches.
public struct ResponseMutation: Sendable {
    /// The clientDataJSON bytes, before they are hashed and signed.
    public var clientDataJSON: (@Sendable (inout [UInt8]) -> Void)?
    /// The authenticator data, before signing.
    public var authenticatorData: (@Sendable (inout [UInt8]) -> Void)?
    /// The authenticator data, after signing.
    public var signedAuthenticatorData: (@Sendable (inout [UInt8]) -> Void)?
    /// The signature (the assertion's, or the attestation statement's sig), after signing.
    public var signature: (@Sendable (inout [UInt8]) -> Void)?
    /// The attestation statement's members, after signing.
    public var attestationStatement: (@Sendable (inout [CBORMapEntry]) -> Void)?
    /// The encoded attestation object, last.
    public var attestationObject: (@Sendable (inout [UInt8]) -> Void)?

    public init(
        clientDataJSON: (@Sendable (inout [UInt8]) -> Void)? = nil,
        authenticatorData: (@Sendable (inout [UInt8]) -> Void)? = nil,
        signedAuthenticatorData: (@Sendable (inout [UInt8]) -> Void)? = nil,
        signature: (@Sendable (inout [UInt8]) -> Void)? = nil,
        attestationStatement: (@Sendable (inout [CBORMapEntry]) -> Void)? = nil,
        attestationObject: (@Sendable (inout [UInt8]) -> Void)? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signedAuthenticatorData = signedAuthenticatorData
        self.signature = signature
        self.attestationStatement = attestationStatement
        self.attestationObject = attestationObject
    }
}
