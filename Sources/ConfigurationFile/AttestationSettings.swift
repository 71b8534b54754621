import ConfigurationReading
import CryptoCore
import Foundation
import WebAuthnCore

/// The `attestation` configuration: the policy, where the trust material comes from, and that material once read.
public struct AttestationSettings: Sendable {
    public var policy = AttestationPolicy.none
    public var metadataPolicy = MetadataPolicy()
    /// The files the configuration names (`trustAnchors`, `metadata.file` and `metadata.root`, `authenticatorNames`);
    /// nothing is read unless named.
    public var sources = TrustMaterial.Sources()
    /// The trust material read from `sources` by `ServerConfiguration.load`; empty until then.
    public var material = TrustMaterial()
    /// `metadata.url`: where `passkeyd serve` fetches fresher BLOBs in the background (nil: never); used only when
    /// `metadata` is configured.
    public var metadataURL: String? = AttestationSettings.fidoMetadataServiceURL
    /// `metadata.refreshHours`: how often, in seconds.
    public var metadataRefreshSeconds: TimeInterval = 86_400

    /// The FIDO Alliance's Metadata Service (MDS3) BLOB.
    public static let fidoMetadataServiceURL = "https://mds3.fidoalliance.org/"

    public init() {}

    /// Roots from the `trustAnchors` folder; a certificate path must end at one of them (or at a metadata root).
    public var trustAnchors: [X509Certificate] { material.trustAnchors }
    /// Names of authenticators by AAGUID, from `authenticatorNames`.
    public var authenticatorNames: AuthenticatorNameList { material.authenticatorNames }

    /// The metadata BLOB verified at `time` (signature, chain to the configured root, freshness); nil without one.
    public func verifiedMetadata(at time: Date) throws(ConfigurationError) -> MetadataBLOB? {
        try material.verifiedMetadata(at: time, policy: metadataPolicy)
    }
}
