import CBOR

/// Hooks that change a response while `SoftwareAuthenticator` builds it. Hooks marked "before signing" change
/// what the signature covers (so the signature still verifies); hooks marked "after signing" change bytes the
/// signature no longer matches.
public struct ResponseMutation {
    /// The clientDataJSON bytes, before they are hashed and signed.
    public var clientDataJSON: ((inout [UInt8]) -> Void)?
    /// The authenticator data, before signing.
    public var authenticatorData: ((inout [UInt8]) -> Void)?
    /// The authenticator data, after signing.
    public var signedAuthenticatorData: ((inout [UInt8]) -> Void)?
    /// The signature (the assertion's, or the attestation statement's sig), after signing.
    public var signature: ((inout [UInt8]) -> Void)?
    /// The attestation statement's members, after signing.
    public var attestationStatement: ((inout [CBORMapEntry]) -> Void)?
    /// The encoded attestation object, last.
    public var attestationObject: ((inout [UInt8]) -> Void)?

    public init(
        clientDataJSON: ((inout [UInt8]) -> Void)? = nil,
        authenticatorData: ((inout [UInt8]) -> Void)? = nil,
        signedAuthenticatorData: ((inout [UInt8]) -> Void)? = nil,
        signature: ((inout [UInt8]) -> Void)? = nil,
        attestationStatement: ((inout [CBORMapEntry]) -> Void)? = nil,
        attestationObject: ((inout [UInt8]) -> Void)? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signedAuthenticatorData = signedAuthenticatorData
        self.signature = signature
        self.attestationStatement = attestationStatement
        self.attestationObject = attestationObject
    }
}
