import CryptoCore
import Foundation

/// A random 32-byte secret kept in the data folder (mode 0600), created on first start.
enum ServerSecret {
    static func load(path: String) throws -> [UInt8] {
        if let data = FileManager.default.contents(atPath: path), data.count == 32 { return Array(data) }
        let secret = SystemRandom().bytes(count: 32)
        guard FileManager.default.createFile(atPath: path, contents: Data(secret), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission)
        }
        return secret
    }
}
