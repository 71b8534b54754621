import CryptoCore
import Storage

/// Where a node keeps its 32-byte secrets (`server-secret`, `apple-refresh-token-key`): files in the data folder
/// for one node on SQLite, or the shared PostgreSQL database, so that every node holds the same bytes.
enum SecretSource {
    case files(directory: String)
    case database(any SharedSecretStore)

    /// Derives the decoy credentials of unknown usernames.
    static let serverSecret = "server-secret"
    /// Encrypts stored Apple refresh tokens.
    static let appleRefreshTokenKey = "apple-refresh-token-key"
    static let names = [serverSecret, appleRefreshTokenKey]

    /// The secret named `name`, created at random on first use.
    func secret(named name: String) throws -> [UInt8] {
        switch self {
        case .files(let directory):
            try ServerSecret.load(path: directory + "/" + name)
        case .database(let store):
            try store.sharedSecret(named: name, proposing: SystemRandom().bytes(count: 32))
        }
    }
}
