import Synchronization
import WebAuthnCore

/// The reloadable settings in force (`ReloadableSettings`), shared by the server and the controllers that read them:
/// each request reads one consistent copy; a reload or a fresher metadata BLOB replaces it whole.
final class SettingsInForce: Sendable {
    private let settings: Mutex<ReloadableSettings>

    init(_ settings: ReloadableSettings) {
        self.settings = Mutex(settings)
    }

    /// Runs `body` with the settings held alone (to read several members as one copy, or to replace them).
    func withLock<Result: Sendable, Failure: Error>(_ body: (inout ReloadableSettings) throws(Failure) -> Result) throws(Failure) -> Result {
        try settings.withLock { settings throws(Failure) in try body(&settings) }
    }

    /// The relying party in force (its origins follow a reload of the associated domains).
    var relyingParty: RelyingParty {
        withLock { $0.relyingParty }
    }
}
