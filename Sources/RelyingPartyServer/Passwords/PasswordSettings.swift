/// The `passwords` block: how imported password hashes are verified at `POST /auth/password`.
public struct PasswordSettings: Sendable, Equatable {
    /// The most password verifications running at once on this node; a sign-in beyond them is refused at once with
    /// `503 password_verification_busy` and `Retry-After` (each verification takes tens of milliseconds and up to hundreds of
    /// megabytes, so queueing them would stall every other request behind a flood of guesses).
    public var maximumConcurrentVerifications = 2

    public static let concurrencyRange = 1...64

    /// How long after a password sign-in its session may make an automatic passkey upgrade (a conditional registration,
    /// `"mediation": "conditional"`): the platforms offer one right after a password sign-in only.
    public var upgradeWindowSeconds = 300

    public static let upgradeWindowRange = 30...3_600

    public init() {}

    init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(["maximumConcurrentVerifications", "upgradeWindowSeconds"])
        upgradeWindowSeconds = try reader.integer("upgradeWindowSeconds", in: Self.upgradeWindowRange) ?? upgradeWindowSeconds
        maximumConcurrentVerifications =
            try reader.integer("maximumConcurrentVerifications", in: Self.concurrencyRange) ?? maximumConcurrentVerifications
    }
}
