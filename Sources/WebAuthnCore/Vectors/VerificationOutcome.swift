/// The verdict on one verification case, as `passkeyd verify` prints it (one JSON line per case).
public struct VerificationOutcome: Encodable, Sendable, Equatable {
    public var id: String
    public var ok: Bool
    public var error: String?
    public var reason: String?
    public var fmt: String?
    public var credentialId: String?
    public var signCount: UInt32?
    public var alg: Int?
    public var aaguid: String?
    public var userVerified: Bool?
    public var backupEligible: Bool?
    public var backupState: Bool?
    public var attestationType: String?
    public var trustPath: String?

    public init(id: String, ok: Bool) {
        self.id = id
        self.ok = ok
    }
}
