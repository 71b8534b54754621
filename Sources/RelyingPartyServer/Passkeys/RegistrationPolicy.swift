import ConfigurationFile
import Foundation
import WebAuthnCore

/// What the configuration decides about passkey registration, as one value: the algorithms accepted, the cap on an
/// account's passkeys, the options' timeout, and the passkey upgrade after a password sign-in.
struct RegistrationPolicy: Sendable {
    /// `algorithms`: the public-key algorithms a new passkey may use.
    let algorithms: [COSEAlgorithm]
    /// `limits.maximumPasskeysPerAccount`.
    let maximumPasskeysPerAccount: Int
    /// The options' `timeout`: the challenge's lifetime (`challengeLifetimeSeconds`).
    let challengeTimeoutMilliseconds: Int
    /// `passwords.upgradeWindowSeconds`: how long after a password sign-in a conditional registration is taken.
    let upgradeWindow: TimeInterval
    /// `passwords.afterUpgrade: retire`: an account's imported password hash goes with its first passkey.
    let retiresPasswords: Bool

    init(_ configuration: ServerConfiguration) {
        algorithms = configuration.algorithms
        maximumPasskeysPerAccount = configuration.maximumPasskeysPerAccount
        challengeTimeoutMilliseconds = configuration.challengeLifetimeSeconds * 1000
        upgradeWindow = TimeInterval(configuration.passwords.upgradeWindowSeconds)
        retiresPasswords = configuration.passwords.retiresAfterUpgrade
    }
}
