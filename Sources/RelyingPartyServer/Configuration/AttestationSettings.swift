import CryptoCore
import Foundation
import WebAuthnCore

/// The `attestation` configuration: the policy, and the trust material read from files at start-up.
public struct AttestationSettings: Sendable {
    public var policy = AttestationPolicy.none
    /// Roots from the `trustAnchors` folder; a certificate path must end at one of them (or at a metadata root).
    public var trustAnchors: [X509Certificate] = []
    /// The FIDO metadata BLOB as read from `metadata.file`, verified when the server starts.
    public var metadataText: String?
    /// The BLOB's signing roots (`metadata.root`).
    public var metadataRoots: [X509Certificate] = []
    public var metadataPolicy = MetadataPolicy()
    public var authenticatorNames = AuthenticatorNameList()

    /// Where the shipped trust data lives, relative to the working directory.
    public static let shippedNamesFile = "TrustAnchors/aaguid-names.json"
    public static let shippedMetadataRoots = "TrustAnchors/metadata"

    public init() {}

    /// The `attestation` value: `"none"`, `"verified"`, or an object with `policy`, `allowedAAGUIDs`, `trustAnchors`,
    /// `authenticatorNames` and `metadata` (`file`, `root`, `refusedStatuses`, `staleGraceDays`). Files are read here.
    init(_ value: JSONValue?) throws(ConfigurationError) {
        if FileManager.default.fileExists(atPath: Self.shippedNamesFile) {
            authenticatorNames = try Self.names(Self.shippedNamesFile, key: "attestation.authenticatorNames")
        }
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
            throw ConfigurationError(key: "attestation.allowedAAGUIDs", reason: "goes with \"policy\": \"allowList\"")
        }
        if let folder = try reader.string("trustAnchors") {
            do {
                trustAnchors = try TrustAnchorDirectory.load(folder)
            } catch {
                throw ConfigurationError(key: "attestation.trustAnchors", reason: error.reason)
            }
        }
        if reader.has("authenticatorNames") {
            authenticatorNames = AuthenticatorNameList()
            if let file = try reader.string("authenticatorNames") {
                authenticatorNames = try Self.names(file, key: "attestation.authenticatorNames")
            }
        }
        if let metadata = try reader.object("metadata") {
            try metadata.only(["file", "url", "root", "refusedStatuses", "staleGraceDays"])
            guard !metadata.has("url") else {
                throw ConfigurationError(
                    key: "attestation.metadata.url",
                    reason:
                        "passkeyd does not download the BLOB; fetch https://mds3.fidoalliance.org/ daily with curl -o FILE and set attestation.metadata.file"
                )
            }
            guard let file = try metadata.string("file") else {
                throw ConfigurationError(
                    key: "attestation.metadata.file",
                    reason: "names the downloaded FIDO metadata BLOB and is required with metadata"
                )
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError(key: "attestation.metadata.file", reason: "cannot read \(file)")
            }
            metadataText = String(decoding: data, as: UTF8.self)
            let root = try metadata.string("root") ?? Self.shippedMetadataRoots
            do {
                metadataRoots = try TrustAnchorDirectory.loadFileOrFolder(root)
            } catch {
                throw ConfigurationError(key: "attestation.metadata.root", reason: error.reason)
            }
            if let statuses = try metadata.strings("refusedStatuses") {
                metadataPolicy.refusedStatuses = Set(statuses.map(AuthenticatorStatus.init(rawValue:)))
            }
            if let days = try metadata.integer("staleGraceDays", in: 0...90) {
                metadataPolicy.staleBLOBGrace = TimeInterval(days) * 86_400
            }
        }
    }

    /// The metadata BLOB verified at `time` (signature, chain to the configured root, freshness); nil without one.
    public func verifiedMetadata(at time: Date) throws(ConfigurationError) -> MetadataBLOB? {
        guard let metadataText else { return nil }
        do {
            return try MetadataBLOB(compactJWS: metadataText, trustedRoots: metadataRoots, at: time, policy: metadataPolicy)
        } catch {
            throw ConfigurationError(key: "attestation.metadata.file", reason: "\(error.code): \(error.reason)")
        }
    }

    private static func policy(_ name: String, allowed: [String]?, key: String) throws(ConfigurationError) -> AttestationPolicy {
        switch name {
        case "none": return .none
        case "verified": return .verified
        case "allowList" where key != "attestation":
            guard let allowed, !allowed.isEmpty else {
                throw ConfigurationError(key: "attestation.allowedAAGUIDs", reason: "must list at least one AAGUID with \"policy\": \"allowList\"")
            }
            for aaguid in allowed where UUID(uuidString: aaguid) == nil {
                throw ConfigurationError(key: "attestation.allowedAAGUIDs", reason: "\(aaguid) is not an AAGUID (8-4-4-4-12 hex digits)")
            }
            return .allowList(Set(allowed.map { $0.lowercased() }))
        default:
            let choices = key == "attestation" ? "\"none\", \"verified\" or an object" : "none, verified, allowList"
            throw ConfigurationError(key: key, reason: "must be one of: \(choices)")
        }
    }

    private static func names(_ file: String, key: String) throws(ConfigurationError) -> AuthenticatorNameList {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError(key: key, reason: "cannot read \(file)")
        }
        do {
            return try AuthenticatorNameList(json: Array(data))
        } catch {
            throw ConfigurationError(key: key, reason: "\(file): \(error.reason)")
        }
    }
}
