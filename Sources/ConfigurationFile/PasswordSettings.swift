import ConfigurationReading
import Foundation

/// The `passwords` block: how imported password hashes are verified at `POST /auth/password`.
public struct PasswordSettings: Sendable, Equatable {
    /// The most password verifications running at once on this node; a sign-in beyond them is refused at once with
    /// `503 password_verification_busy` and `Retry-After` (each verification takes tens of milliseconds and up to hundreds of
    /// megabytes, so queueing them would stall every other request behind a flood of guesses).
    public var maximumConcurrentVerifications = 2

    public static let concurrencyRange = 1...64

    /// `hashing`: `idle` (the default: each hash on a thread at Linux's idle scheduling policy, which takes only the CPU
    /// no other request wants, and waits at most 5 s for it) or `normal` (the default policy, sharing the cores with
    /// every request: for a node whose cores other work keeps busy, where idle hashes would wait).
    public var hashesAtIdlePolicy = true

    /// How long after a password sign-in its session may make an automatic passkey upgrade (a conditional registration,
    /// `"mediation": "conditional"`): the platforms offer one right after a password sign-in only.
    public var upgradeWindowSeconds = 300

    public static let upgradeWindowRange = 30...3_600

    /// What a password sign-in may do: `full` (the default: a session like any other, so the person is never stranded
    /// when the platform cannot make a passkey silently) or `upgradeOnly` (a restricted session that may only add a
    /// passkey, read `/me` and sign out: `"restricted": true`, no access token, no cookie, inactive to introspection).
    public var restrictsSessions = false

    /// `afterUpgrade`: what happens to an account's imported hash when a passkey is stored for it: `keep` (the default:
    /// the password keeps working) or `retire` (the hash is deleted in the transaction that stores the passkey).
    public var retiresAfterUpgrade = false

    /// `retireAfterDays` (with `afterUpgrade: keep`): an account's imported hash stops signing in this many days after
    /// a passkey was stored for it, and is deleted (by the periodic purge, or at the next password attempt); nil keeps
    /// it.
    public var retireAfterDays: Int?

    public static let retireAfterDaysRange = 1...3_650

    /// `retireAfterDays` in seconds.
    package var retirement: TimeInterval? { retireAfterDays.map { TimeInterval($0) * 86_400 } }

    public init() {}

    package init(_ reader: ConfigurationReader) throws(ConfigurationError) {
        try reader.only(["maximumConcurrentVerifications", "hashing", "upgradeWindowSeconds", "session", "afterUpgrade", "retireAfterDays"])
        if let hashing = try reader.string("hashing") {
            guard ["idle", "normal"].contains(hashing) else {
                throw ConfigurationError(.invalidValue, key: reader.key("hashing"), "must be idle or normal")
            }
            hashesAtIdlePolicy = hashing == "idle"
        }
        if let afterUpgrade = try reader.string("afterUpgrade") {
            guard ["keep", "retire"].contains(afterUpgrade) else {
                throw ConfigurationError(.invalidValue, key: reader.key("afterUpgrade"), "must be keep or retire")
            }
            retiresAfterUpgrade = afterUpgrade == "retire"
        }
        retireAfterDays = try reader.integer("retireAfterDays", in: Self.retireAfterDaysRange)
        if retireAfterDays != nil, retiresAfterUpgrade {
            throw ConfigurationError(
                .invalidValue,
                key: reader.key("retireAfterDays"),
                "applies to afterUpgrade keep: with retire the hash already goes with the first passkey"
            )
        }
        if let session = try reader.string("session") {
            guard ["full", "upgradeOnly"].contains(session) else {
                throw ConfigurationError(.invalidValue, key: reader.key("session"), "must be full or upgradeOnly")
            }
            restrictsSessions = session == "upgradeOnly"
        }
        upgradeWindowSeconds = try reader.integer("upgradeWindowSeconds", in: Self.upgradeWindowRange) ?? upgradeWindowSeconds
        maximumConcurrentVerifications =
            try reader.integer("maximumConcurrentVerifications", in: Self.concurrencyRange) ?? maximumConcurrentVerifications
    }
}
