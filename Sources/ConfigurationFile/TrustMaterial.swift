import ConfigurationReading
import CryptoCore
import Foundation
import WebAuthnCore

/// The attestation trust material, read from files: roots that certificate paths must end at, the FIDO metadata
/// BLOB with its signing roots, and names of authenticators. `passkeyd serve` (the `attestation` configuration) and
/// `passkeyd verify` (its options) both load it here, and only from the paths they are given: nothing is read from
/// the working directory or anywhere else by default.
public struct TrustMaterial: Sendable {
    /// A file or folder to read, and the configuration key or command-line option that named it (errors name it).
    public struct Source: Sendable, Equatable {
        public var path: String
        public var key: String

        public init(_ path: String, key: String) {
            self.path = path
            self.key = key
        }
    }

    /// The metadata BLOB and the roots its signing chain must end at: one goes with the other.
    public struct MetadataSource: Sendable, Equatable {
        /// The downloaded BLOB (compact JWS).
        public var blob: Source
        /// A PEM file, or a folder of them.
        public var roots: Source

        public init(blob: Source, roots: Source) {
            self.blob = blob
            self.roots = roots
        }
    }

    /// What to read; a nil part is not read.
    public struct Sources: Sendable, Equatable {
        /// A folder of `*.pem`/`*.crt` roots.
        public var trustAnchors: Source?
        public var metadata: MetadataSource?
        /// A JSON name list (`TrustAnchors/aaguid-names.json`'s format).
        public var authenticatorNames: Source?

        public init(trustAnchors: Source? = nil, metadata: MetadataSource? = nil, authenticatorNames: Source? = nil) {
            self.trustAnchors = trustAnchors
            self.metadata = metadata
            self.authenticatorNames = authenticatorNames
        }
    }

    public var trustAnchors: [X509Certificate] = []
    /// The metadata BLOB as read, not yet verified (`verifiedMetadata` does that at the time it is given).
    public var metadataText: String?
    public var metadataRoots: [X509Certificate] = []
    /// The key or option that named the BLOB, for the errors of its verification.
    public var metadataKey = ""
    public var authenticatorNames = AuthenticatorNameList()

    public init() {}

    /// Reads every part `sources` names; a part that cannot be read or used names its key.
    public static func load(_ sources: Sources) throws(ConfigurationError) -> TrustMaterial {
        var material = TrustMaterial()
        if let source = sources.trustAnchors {
            do {
                material.trustAnchors = try TrustAnchorDirectory.load(source.path)
            } catch {
                throw ConfigurationError(.invalidFile, key: source.key, error.reason)
            }
        }
        if let metadata = sources.metadata {
            guard let data = FileManager.default.contents(atPath: metadata.blob.path) else {
                throw ConfigurationError(.unreadable, key: metadata.blob.key, "cannot read \(metadata.blob.path)")
            }
            material.metadataText = String(decoding: data, as: UTF8.self)
            material.metadataKey = metadata.blob.key
            do {
                material.metadataRoots = try TrustAnchorDirectory.loadFileOrFolder(metadata.roots.path)
            } catch {
                throw ConfigurationError(.invalidFile, key: metadata.roots.key, error.reason)
            }
        }
        if let source = sources.authenticatorNames {
            guard let data = FileManager.default.contents(atPath: source.path) else {
                throw ConfigurationError(.unreadable, key: source.key, "cannot read \(source.path)")
            }
            do {
                material.authenticatorNames = try AuthenticatorNameList(json: Array(data))
            } catch {
                throw ConfigurationError(.invalidFile, key: source.key, "\(source.path): \(error.reason)")
            }
        }
        return material
    }

    /// The metadata BLOB verified at `time` (signature, chain to the roots, freshness under `policy`); nil without one.
    public func verifiedMetadata(at time: Date, policy: MetadataPolicy) throws(ConfigurationError) -> MetadataBLOB? {
        guard let metadataText else { return nil }
        do {
            return try MetadataBLOB(compactJWS: metadataText, trustedRoots: metadataRoots, at: time, policy: policy)
        } catch {
            throw ConfigurationError(.invalidFile, key: metadataKey, "\(error.code): \(error.reason)")
        }
    }
}
