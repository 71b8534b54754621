import Foundation
import WebAuthnCore

/// The verdict on one verification case, as `passkeyd verify` prints it (one JSON line per case).
public struct VerificationOutcome: Sendable, Equatable {
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
    public var authenticatorName: String?

    public init(id: String, ok: Bool) {
        self.id = id
        self.ok = ok
    }

    /// One line of JSON with the members in a fixed order (id, ok, error first) and absent ones left out.
    public var jsonLine: String {
        let members: [(String, Any?)] = [
            ("id", id), ("ok", ok), ("error", error), ("reason", reason), ("fmt", fmt), ("credentialId", credentialId),
            ("signCount", signCount.map { Int($0) }), ("alg", alg), ("aaguid", aaguid), ("userVerified", userVerified),
            ("backupEligible", backupEligible), ("backupState", backupState), ("attestationType", attestationType),
            ("trustPath", trustPath), ("authenticatorName", authenticatorName),
        ]
        let parts = members.compactMap { name, value -> String? in
            guard let value, let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])
            else {
                return nil
            }
            return "\"\(name)\":" + String(decoding: data, as: UTF8.self)
        }
        return "{" + parts.joined(separator: ",") + "}"
    }
}
