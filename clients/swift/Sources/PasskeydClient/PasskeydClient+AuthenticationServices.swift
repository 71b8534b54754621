// The AuthenticationServices layer: the platform mapping wired to ASAuthorizationController. It only copies values
// between the pure types (PlatformRegistrationRequest, PlatformAssertion …) and Apple's; every decision is in them.
// It cannot be compiled on Linux, where passkeyd's tests run the rest: keep it this thin.
#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation

extension PlatformRegistrationRequest {
    /// The request for `ASAuthorizationController`.
    public func authorizationRequest() -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: relyingPartyIdentifier)
        let request = provider.createCredentialRegistrationRequest(challenge: challenge, name: name, userID: userID)
        request.displayName = displayName
        request.userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: userVerificationPreference)
        if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
            request.excludedCredentials = excludedCredentials.map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0) }
        }
        return request
    }
}

extension PlatformAssertionRequest {
    /// The request for `ASAuthorizationController`.
    public func authorizationRequest() -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: relyingPartyIdentifier)
        let request = provider.createCredentialAssertionRequest(challenge: challenge)
        request.allowedCredentials = allowedCredentials.map { ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0) }
        request.userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: userVerificationPreference)
        return request
    }
}

extension PlatformRegistration {
    public init(_ credential: ASAuthorizationPlatformPublicKeyCredentialRegistration) {
        var attachment = "platform"
        if #available(iOS 16.6, macOS 13.5, *), credential.attachment == .crossPlatform { attachment = "cross-platform" }
        self.init(
            credentialID: credential.credentialID,
            rawClientDataJSON: credential.rawClientDataJSON,
            rawAttestationObject: credential.rawAttestationObject,
            attachment: attachment
        )
    }
}

extension PlatformAssertion {
    public init(_ credential: ASAuthorizationPlatformPublicKeyCredentialAssertion) {
        var attachment = "platform"
        if #available(iOS 16.6, macOS 13.5, *), credential.attachment == .crossPlatform { attachment = "cross-platform" }
        self.init(
            credentialID: credential.credentialID,
            rawClientDataJSON: credential.rawClientDataJSON,
            rawAuthenticatorData: credential.rawAuthenticatorData,
            signature: credential.signature,
            userID: credential.userID,
            attachment: attachment
        )
    }
}

extension AppleSignInNonce {
    /// A Sign in with Apple request for the name and email, carrying the hashed nonce.
    public func authorizationRequest() -> ASAuthorizationAppleIDRequest {
        let request = ASAuthorizationAppleIDProvider().createRequest()
        request.requestedScopes = [.fullName, .email]
        request.nonce = hashed
        return request
    }
}

extension AppleSignInExchange {
    public init(_ credential: ASAuthorizationAppleIDCredential, nonce: AppleSignInNonce) throws(PasskeydError) {
        try self.init(
            identityToken: credential.identityToken,
            authorizationCode: credential.authorizationCode,
            fullName: credential.fullName,
            nonce: nonce
        )
    }
}

/// Runs one authorization request in `ASAuthorizationController` and returns its credential.
@MainActor
public final class PasskeydAuthorization: NSObject, ASAuthorizationControllerDelegate, ASAuthorizationControllerPresentationContextProviding {
    private let anchor: ASPresentationAnchor
    private var continuation: CheckedContinuation<ASAuthorization, any Error>?

    public init(anchor: ASPresentationAnchor) {
        self.anchor = anchor
    }

    public func perform(_ request: ASAuthorizationRequest) async throws -> ASAuthorization {
        try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
            let controller = ASAuthorizationController(authorizationRequests: [request])
            controller.delegate = self
            controller.presentationContextProvider = self
            controller.performRequests()
        }
    }

    public nonisolated func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        MainActor.assumeIsolated { anchor }
    }

    public nonisolated func authorizationController(
        controller: ASAuthorizationController,
        didCompleteWithAuthorization authorization: ASAuthorization
    ) {
        MainActor.assumeIsolated {
            continuation?.resume(returning: authorization)
            continuation = nil
        }
    }

    public nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        MainActor.assumeIsolated {
            continuation?.resume(throwing: error)
            continuation = nil
        }
    }
}

extension PasskeydClient {
    /// Creates an account with a new passkey (or, signed in, adds one): options, the passkey sheet, verify.
    @MainActor
    public func registerPasskey(username: String? = nil, displayName: String? = nil, anchor: ASPresentationAnchor) async throws -> SignInResult {
        let request = try PlatformRegistrationRequest(try await registrationOptions(username: username, displayName: displayName))
        let authorization = try await PasskeydAuthorization(anchor: anchor).perform(request.authorizationRequest())
        guard let credential = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialRegistration else {
            throw PasskeydError(.incompleteCredential, message: "the authorization is not a passkey registration")
        }
        return try await register(PlatformRegistration(credential))
    }

    /// The automatic passkey upgrade, right after `signInWithPassword`: a conditional registration request, which the
    /// system completes without a prompt when the password came from the person's password manager, and otherwise
    /// fails quietly (don't show that failure; offer `registerPasskey` later).
    @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
    @MainActor
    public func upgradeToPasskey(anchor: ASPresentationAnchor) async throws -> SignInResult {
        let request = try PlatformRegistrationRequest(try await registrationOptions(automaticUpgrade: true)).authorizationRequest()
        request.requestStyle = .conditional
        let authorization = try await PasskeydAuthorization(anchor: anchor).perform(request)
        guard let credential = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialRegistration else {
            throw PasskeydError(.incompleteCredential, message: "the authorization is not a passkey registration")
        }
        return try await register(PlatformRegistration(credential))
    }

    /// Signs in with a passkey (any of the RP ID's without a username).
    @MainActor
    public func signInWithPasskey(username: String? = nil, anchor: ASPresentationAnchor) async throws -> SignInResult {
        let request = try PlatformAssertionRequest(try await authenticationOptions(username: username))
        let authorization = try await PasskeydAuthorization(anchor: anchor).perform(request.authorizationRequest())
        guard let credential = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion else {
            throw PasskeydError(.incompleteCredential, message: "the authorization is not a passkey assertion")
        }
        return try await signIn(PlatformAssertion(credential))
    }

    /// Sign in with Apple: a nonce from passkeyd, Apple's sheet with its hash, the exchange.
    @MainActor
    public func signInWithApple(anchor: ASPresentationAnchor) async throws -> SignInResult {
        let nonce = try await appleNonce()
        let authorization = try await PasskeydAuthorization(anchor: anchor).perform(nonce.authorizationRequest())
        guard let credential = authorization.credential as? ASAuthorizationAppleIDCredential else {
            throw PasskeydError(.incompleteCredential, message: "the authorization is not an Apple ID credential")
        }
        return try await signInWithApple(try AppleSignInExchange(credential, nonce: nonce))
    }
}
#endif
