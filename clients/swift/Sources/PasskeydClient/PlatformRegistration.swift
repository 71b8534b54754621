import Foundation

/// What `ASAuthorizationPlatformPublicKeyCredentialRegistration` hands the app, to be sent to passkeyd.
public struct PlatformRegistration: Sendable, Equatable {
    public let credentialID: Data
    public let rawClientDataJSON: Data
    /// Optional on the platform's type; passkeyd cannot verify a registration without it.
    public let rawAttestationObject: Data?
    /// `platform` (this device, synced) or `cross-platform` (a security key, another device by QR code).
    public let attachment: String

    public init(credentialID: Data, rawClientDataJSON: Data, rawAttestationObject: Data?, attachment: String = "platform") {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAttestationObject = rawAttestationObject
        self.attachment = attachment
    }

    /// The `RegistrationResponseJSON` passkeyd verifies. Platform passkeys are always discoverable (`credProps.rk`)
    /// and held by the device or reached over hybrid transport.
    public func response() throws(PasskeydError) -> RegistrationResponse {
        guard let attestationObject = rawAttestationObject, !attestationObject.isEmpty else {
            throw PasskeydError(.incompleteCredential, message: "the registration has no attestation object")
        }
        guard !credentialID.isEmpty, !rawClientDataJSON.isEmpty else {
            throw PasskeydError(.incompleteCredential, message: "the registration has no credential ID or client data")
        }
        return RegistrationResponse(
            id: credentialID,
            clientDataJSON: rawClientDataJSON,
            attestationObject: attestationObject,
            transports: attachment == "platform" ? ["internal", "hybrid"] : nil,
            attachment: attachment,
            residentKey: attachment == "platform" ? true : nil
        )
    }
}
