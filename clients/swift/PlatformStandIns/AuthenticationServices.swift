// A stand-in of the few AuthenticationServices declarations PasskeydClient+AuthenticationServices.swift uses, with
// the signatures of Apple's SDK (iOS 17.4 / macOS 14.4), so that the platform layer is type-checked on Linux, where
// the SDK does not exist. Nothing here runs: `make client-swift-platform-check` only type-checks against it. When the
// platform file starts using another declaration, add it here with Apple's exact signature.
import Foundation

// UIWindow on iOS and visionOS, NSWindow on macOS: both main-actor classes.
@MainActor
open class ASPresentationAnchor: NSObject {}

open class ASAuthorizationRequest: NSObject {}

public protocol ASAuthorizationCredential: NSObjectProtocol {}

open class ASAuthorization: NSObject {
    open var provider: Any { fatalError("stand-in") }
    open var credential: any ASAuthorizationCredential { fatalError("stand-in") }
}

public struct ASAuthorizationPublicKeyCredentialUserVerificationPreference: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
}

public enum ASAuthorizationPublicKeyCredentialAttachment: Int, Sendable {
    case platform = 0
    case crossPlatform = 1
}

open class ASAuthorizationPlatformPublicKeyCredentialDescriptor: NSObject {
    public init(credentialID: Data) {}
}

open class ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest: ASAuthorizationRequest {
    public enum RequestStyle: Int, Sendable {
        case standard = 0
        case conditional = 1
    }
    @available(iOS 18.0, macOS 15.0, visionOS 2.0, *)
    open var requestStyle: RequestStyle {
        get { fatalError("stand-in") }
        set {}
    }
    open var displayName: String?
    open var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: "preferred")
    open var excludedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] = []
}

open class ASAuthorizationPlatformPublicKeyCredentialAssertionRequest: ASAuthorizationRequest {
    open var allowedCredentials: [ASAuthorizationPlatformPublicKeyCredentialDescriptor] = []
    open var userVerificationPreference = ASAuthorizationPublicKeyCredentialUserVerificationPreference(rawValue: "preferred")
}

open class ASAuthorizationPlatformPublicKeyCredentialProvider: NSObject {
    public init(relyingPartyIdentifier: String) {}
    open func createCredentialRegistrationRequest(
        challenge: Data,
        name: String,
        userID: Data
    ) -> ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest { fatalError("stand-in") }
    open func createCredentialAssertionRequest(challenge: Data) -> ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        fatalError("stand-in")
    }
}

open class ASAuthorizationPlatformPublicKeyCredentialRegistration: NSObject, ASAuthorizationCredential {
    open var credentialID: Data { fatalError("stand-in") }
    open var rawClientDataJSON: Data { fatalError("stand-in") }
    open var rawAttestationObject: Data? { fatalError("stand-in") }
    open var attachment: ASAuthorizationPublicKeyCredentialAttachment { fatalError("stand-in") }
}

open class ASAuthorizationPlatformPublicKeyCredentialAssertion: NSObject, ASAuthorizationCredential {
    open var credentialID: Data { fatalError("stand-in") }
    open var rawClientDataJSON: Data { fatalError("stand-in") }
    open var rawAuthenticatorData: Data! { fatalError("stand-in") }
    open var signature: Data! { fatalError("stand-in") }
    open var userID: Data! { fatalError("stand-in") }
    open var attachment: ASAuthorizationPublicKeyCredentialAttachment { fatalError("stand-in") }
}

public struct ASAuthorizationScope: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let fullName = ASAuthorizationScope(rawValue: "full_name")
    public static let email = ASAuthorizationScope(rawValue: "email")
}

open class ASAuthorizationAppleIDRequest: ASAuthorizationRequest {
    open var requestedScopes: [ASAuthorizationScope]?
    open var nonce: String?
}

open class ASAuthorizationAppleIDProvider: NSObject {
    public override init() {}
    open func createRequest() -> ASAuthorizationAppleIDRequest { fatalError("stand-in") }
}

open class ASAuthorizationAppleIDCredential: NSObject, ASAuthorizationCredential {
    open var user: String { fatalError("stand-in") }
    open var identityToken: Data? { fatalError("stand-in") }
    open var authorizationCode: Data? { fatalError("stand-in") }
    open var fullName: PersonNameComponents? { fatalError("stand-in") }
    open var email: String? { fatalError("stand-in") }
}

@MainActor
public protocol ASAuthorizationControllerDelegate: NSObjectProtocol {
    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization)
    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error)
}

@MainActor
public protocol ASAuthorizationControllerPresentationContextProviding: NSObjectProtocol {
    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor
}

@MainActor
open class ASAuthorizationController: NSObject {
    public init(authorizationRequests: [ASAuthorizationRequest]) {}
    open weak var delegate: (any ASAuthorizationControllerDelegate)?
    open weak var presentationContextProvider: (any ASAuthorizationControllerPresentationContextProviding)?
    open func performRequests() {}
}
