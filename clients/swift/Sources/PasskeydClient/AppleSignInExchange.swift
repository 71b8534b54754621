import Foundation

/// The body of `POST /auth/apple`, from what `ASAuthorizationAppleIDCredential` hands the app and the nonce it asked
/// Apple with.
public struct AppleSignInExchange: Encodable, Sendable, Equatable {
    /// The name as passkeyd stores it: the components Apple gives (`givenName`, `familyName`).
    public struct FullName: Codable, Sendable, Equatable {
        public let givenName: String?
        public let familyName: String?
    }

    public let identityToken: String
    public let rawNonce: String
    /// Lets passkeyd get a refresh token, and so revoke it when the account is deleted (App Store 5.1.1(v)).
    public let authorizationCode: String?
    /// Apple sends the name once, on the first authorization: pass it every time, it is nil afterwards.
    public let fullName: FullName?

    /// - Parameters:
    ///   - identityToken: `credential.identityToken` (UTF-8 JWT bytes).
    ///   - authorizationCode: `credential.authorizationCode`.
    ///   - fullName: `credential.fullName`; left out when it has neither a given nor a family name.
    ///   - nonce: the nonce whose `hashed` form the request carried.
    public init(identityToken: Data?, authorizationCode: Data?, fullName: PersonNameComponents?, nonce: AppleSignInNonce) throws(PasskeydError) {
        guard let identityToken, let token = String(data: identityToken, encoding: .utf8), !token.isEmpty else {
            throw PasskeydError(.incompleteCredential, message: "the Apple credential has no identity token")
        }
        self.identityToken = token
        rawNonce = nonce.raw
        self.authorizationCode = authorizationCode.flatMap { String(data: $0, encoding: .utf8) }.flatMap { $0.isEmpty ? nil : $0 }
        let given = fullName?.givenName.flatMap { $0.isEmpty ? nil : $0 }
        let family = fullName?.familyName.flatMap { $0.isEmpty ? nil : $0 }
        self.fullName = given == nil && family == nil ? nil : FullName(givenName: given, familyName: family)
    }
}
