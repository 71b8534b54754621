import ConfigurationReading
import Foundation
import JSON
import WebAuthnCore

extension AttestationSettings {
    /// The `attestation` value: `"none"`, `"verified"`, or an object with `policy`, `allowedAAGUIDs`, `trustAnchors`,
    /// `authenticatorNames` and `metadata` (`file` and `root`, `refusedStatuses`, `staleGraceDays`). Pure: the files
    /// it names become `sources`, which `TrustMaterial.load` reads.
    package init(_ value: JSONValue?) throws(ConfigurationError) {
        self.init()
        guard let value, value != .null else { return }
        if let text = value.stringValue {
            policy = try Self.policy(text, allowed: nil, key: "attestation")
            return
        }
        let reader = try ConfigurationReader(value, path: "attestation")
        try reader.only(["policy", "allowedAAGUIDs", "trustAnchors", "authenticatorNames", "metadata"])
        let allowed = try reader.strings("allowedAAGUIDs")
        policy = try Self.policy(try reader.string("policy") ?? "none", allowed: allowed, key: "attestation.policy")
        if allowed != nil, policy == .none || policy == .verified {
            throw ConfigurationError(.invalidValue, key: "attestation.allowedAAGUIDs", "goes with \"policy\": \"allowList\"")
        }
        sources.trustAnchors = try reader.string("trustAnchors").map { TrustMaterial.Source($0, key: "attestation.trustAnchors") }
        sources.authenticatorNames = try reader.string("authenticatorNames").map { TrustMaterial.Source($0, key: "attestation.authenticatorNames") }
        if let metadata = try reader.object("metadata") { try parseMetadata(metadata) }
    }

    /// The `attestation.metadata` block: the BLOB passkeyd starts with (`file`), the roots it must chain to (`root`),
    /// where fresher ones are fetched from (`url`, the FIDO Alliance's MDS3 by default, null for nowhere) and how often
    /// (`refreshHours`), and policy.
    private mutating func parseMetadata(_ metadata: ConfigurationReader) throws(ConfigurationError) {
        try metadata.only(["file", "url", "root", "refreshHours", "refusedStatuses", "staleGraceDays"])
        if metadata.has("url") { metadataURL = try metadata.outboundURL("url") }
        if let hours = try metadata.integer("refreshHours", in: 1...168) {
            metadataRefreshSeconds = TimeInterval(hours) * 3600
        }
        guard let file = try metadata.string("file") else {
            throw ConfigurationError(
                .missingValue,
                key: "attestation.metadata.file",
                "names the downloaded FIDO metadata BLOB and is required with metadata"
            )
        }
        guard let root = try metadata.string("root") else {
            throw ConfigurationError(
                .missingValue,
                key: "attestation.metadata.root",
                "names the PEM file or folder of the BLOB's signing roots (TrustAnchors/metadata ships the FIDO Alliance's) and is required with metadata"
            )
        }
        sources.metadata = TrustMaterial.MetadataSource(
            blob: TrustMaterial.Source(file, key: "attestation.metadata.file"),
            roots: TrustMaterial.Source(root, key: "attestation.metadata.root")
        )
        if let statuses = try metadata.strings("refusedStatuses") {
            metadataPolicy.refusedStatuses = Set(statuses.map(AuthenticatorStatus.init(rawValue:)))
        }
        if let days = try metadata.integer("staleGraceDays", in: 0...90) {
            metadataPolicy.staleBLOBGrace = TimeInterval(days) * 86_400
        }
    }

    private static func policy(_ name: String, allowed: [String]?, key: String) throws(ConfigurationError) -> AttestationPolicy {
        switch name {
        case "none": return .none
        case "verified": return .verified
        case "allowList" where key != "attestation":
            guard let allowed, !allowed.isEmpty else {
                throw ConfigurationError(
                    .missingValue,
                    key: "attestation.allowedAAGUIDs",
                    "must list at least one AAGUID with \"policy\": \"allowList\""
                )
            }
            for aaguid in allowed where UUID(uuidString: aaguid) == nil {
                throw ConfigurationError(.invalidValue, key: "attestation.allowedAAGUIDs", "\(aaguid) is not an AAGUID (8-4-4-4-12 hex digits)")
            }
            return .allowList(Set(allowed.map { $0.lowercased() }))
        default:
            let choices = key == "attestation" ? "\"none\", \"verified\" or an object" : "none, verified, allowList"
            throw ConfigurationError(.invalidValue, key: key, "must be one of: \(choices)")
        }
    }
}
