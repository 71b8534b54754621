// The token store an app uses: the session in the Keychain. Only on Apple platforms; Linux programs and tests use
// InMemoryTokenStore or their own TokenStore.
#if canImport(Security)
import Foundation
import Security

/// Keeps the session in one Keychain item (`kSecClassGenericPassword`, service `service`), readable after the first
/// unlock and never synchronised or restored to another device
/// (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`).
public struct KeychainTokenStore: TokenStore {
    /// The item's `kSecAttrService`; give each app (or each account of a multi-account app) its own.
    public let service: String

    public init(service: String = "passkeyd.session") {
        self.service = service
    }

    public func load() throws -> StoredSession? {
        var query = itemQuery
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = item as? Data else {
            throw PasskeydError(.tokenStore, message: "the Keychain refused to read the session (OSStatus \(status))")
        }
        return try JSONDecoder().decode(StoredSession.self, from: data)
    }

    public func save(_ session: StoredSession?) throws {
        let deleted = SecItemDelete(itemQuery as CFDictionary)
        guard deleted == errSecSuccess || deleted == errSecItemNotFound else {
            throw PasskeydError(.tokenStore, message: "the Keychain refused to remove the session (OSStatus \(deleted))")
        }
        guard let session else { return }
        var attributes = itemQuery
        attributes[kSecValueData as String] = try JSONEncoder().encode(session)
        attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let added = SecItemAdd(attributes as CFDictionary, nil)
        guard added == errSecSuccess else {
            throw PasskeydError(.tokenStore, message: "the Keychain refused to store the session (OSStatus \(added))")
        }
    }

    private var itemQuery: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
    }
}
#endif
