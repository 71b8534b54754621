import Foundation

/// What `ASAuthorizationPlatformPublicKeyCredentialAssertion` hands the app, to be sent to passkeyd.
public struct PlatformAssertion: Sendable, Equatable {
    public let credentialID: Data
    public let rawClientDataJSON: Data
    public let rawAuthenticatorData: Data
    public let signature: Data
    /// The user handle the passkey was created with (`User.id`'s bytes).
    public let userID: Data?
    public let attachment: String

    public init(
        credentialID: Data,
        rawClientDataJSON: Data,
        rawAuthenticatorData: Data,
        signature: Data,
        userID: Data?,
        attachment: String = "platform"
    ) {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAuthenticatorData = rawAuthenticatorData
        self.signature = signature
        self.userID = userID
        self.attachment = attachment
    }

    /// The `AuthenticationResponseJSON` passkeyd verifies.
    public func response() throws(PasskeydError) -> AuthenticationResponse {
        guard !credentialID.isEmpty, !rawClientDataJSON.isEmpty, !rawAuthenticatorData.isEmpty, !signature.isEmpty else {
            throw PasskeydError(.incompleteCredential, message: "the assertion lacks its credential ID, client data, authenticator data or signature")
        }
        return AuthenticationResponse(
            id: credentialID,
            clientDataJSON: rawClientDataJSON,
            authenticatorData: rawAuthenticatorData,
            signature: signature,
            userHandle: userID,
            attachment: attachment
        )
    }
}
