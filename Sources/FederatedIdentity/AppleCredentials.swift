import AppleSignIn
import ConfigurationReading
import CryptoCore

/// The secrets this server holds for Sign in with Apple: the `.p8` key that signs the client secrets of Apple's token,
/// revoke and migration calls, and the key that seals refresh tokens at rest, each bound to the client ID it was
/// issued to.
struct AppleCredentials: Sendable {
    private let privateKeyPEM: String
    private let keyID: String
    private let teamID: String
    private let sealing: AuthenticatedEncryption

    /// - Throws: `apple.privateKey` when the key cannot sign a client secret; `apple` when the refresh token key is not
    ///   32 bytes.
    init(configuration: AppleConfiguration, setup: AppleSetup, time: any TimeSource) throws(ConfigurationError) {
        do throws(AppleSignInError) {
            _ = try ClientSecret(
                privateKeyPEM: setup.privateKeyPEM,
                keyID: configuration.keyID,
                teamID: configuration.teamID,
                clientID: configuration.audiences[0],
                time: time
            )
        } catch {
            throw ConfigurationError(.invalidFile, key: "apple.privateKey", "is not a usable Sign in with Apple key (\(error.code))")
        }
        do {
            sealing = try AuthenticatedEncryption(key: setup.refreshTokenKey)
        } catch {
            throw ConfigurationError(.invalidValue, key: "apple", "the refresh token key must be 32 bytes")
        }
        privateKeyPEM = setup.privateKeyPEM
        keyID = configuration.keyID
        teamID = configuration.teamID
    }

    /// A client secret for `clientID`, valid from `time`'s now.
    func clientSecret(for clientID: String, time: any TimeSource) throws(AppleSignInError) -> String {
        try ClientSecret(privateKeyPEM: privateKeyPEM, keyID: keyID, teamID: teamID, clientID: clientID, time: time).token
    }

    /// Seals a refresh token for storage; bound to the client ID it was issued to.
    func seal(refreshToken: String, clientID: String) throws(CryptoError) -> [UInt8] {
        try sealing.seal(Array(refreshToken.utf8), associatedData: Self.associatedData(clientID))
    }

    /// Opens a sealed refresh token of `clientID`.
    func open(_ sealed: [UInt8], clientID: String) throws(CryptoError) -> [UInt8] {
        try sealing.open(sealed, associatedData: Self.associatedData(clientID))
    }

    private static func associatedData(_ clientID: String) -> [UInt8] {
        Array("passkeyd apple refresh token for \(clientID)".utf8)
    }
}
