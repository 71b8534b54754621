/// What Sign in with Apple needs besides the `apple` block: the way to reach Apple, the `.p8` key and the key that
/// encrypts refresh tokens at rest. `passkeyd serve` reads them from files; tests pass their own.
public struct AppleSetup: Sendable {
    public var service: any AppleService
    /// The PEM text of the `.p8` Sign in with Apple key.
    public var privateKeyPEM: String
    /// 32 secret bytes for AES-256-GCM over stored refresh tokens.
    public var refreshTokenKey: [UInt8]

    public init(service: any AppleService, privateKeyPEM: String, refreshTokenKey: [UInt8]) {
        self.service = service
        self.privateKeyPEM = privateKeyPEM
        self.refreshTokenKey = refreshTokenKey
    }
}
