import Foundation

/// Display names of authenticators by AAGUID, for naming passkeys in account pages: the shape of the community list
/// github.com/passkeydeveloper/passkey-authenticator-aaguids (`{"<aaguid>": {"name": "…", …}}`; other members such
/// as icons are ignored), so that its `aaguid.json` or `combined_aaguid.json` can be used as is. Names only: an
/// unattested AAGUID is a claim, never a reason to trust.
public struct AuthenticatorNameList: Sendable, Equatable {
    private let names: [String: String]

    /// An empty list.
    public init() {
        names = [:]
    }

    /// Parses the JSON bytes of a list.
    public init(json: [UInt8]) throws(WebAuthnError) {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(json))
        } catch {
            throw WebAuthnError(.metadataMalformed, "the authenticator name list is not JSON")
        }
        guard let members = object as? [String: Any] else {
            throw WebAuthnError(.metadataMalformed, "the authenticator name list is not a JSON object")
        }
        var names: [String: String] = [:]
        for (aaguid, value) in members {
            guard let entry = value as? [String: Any], let name = entry["name"] as? String, !name.isEmpty else {
                throw WebAuthnError(.metadataMalformed, "authenticator name list entry \(aaguid) has no name")
            }
            names[aaguid.lowercased()] = name
        }
        self.names = names
    }

    /// The name for a 16-byte AAGUID; nil when it is unknown or all zero.
    public func name(for aaguid: [UInt8]) -> String? {
        guard aaguid.count == 16, aaguid.contains(where: { $0 != 0 }) else { return nil }
        return names[AttestedCredentialData.uuidString(aaguid)]
    }

    public var count: Int { names.count }
}
