import AccessTokens
import AssociatedDomains
import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Foundation
import WebAuthnCore

/// The part of the configuration a running server takes up again on `SIGHUP` (`RelyingPartyServer.reload`): the
/// associated-domain files (and the origins they imply), the attestation trust material and the metadata BLOB. Each
/// request reads one consistent copy; a reload or a fresher metadata BLOB replaces it whole.
struct ReloadableSettings: Sendable {
    /// The relying party with every accepted origin (`relyingParty.origins` and those the associated domains imply).
    var relyingParty: RelyingParty
    /// The attestation policy and trust material.
    var attestation: AttestationSettings
    /// The verified FIDO metadata BLOB; nil without one.
    var metadata: MetadataBLOB?
    /// When `metadata` was taken in (start-up, reload or refresh), for its age in the metrics.
    var metadataTakenAt: Date
    /// The encoded associated-domain files.
    var wellKnown: WellKnownFiles
    /// `admin.keys`: who may call the admin API.
    var adminKeys: [BackendKey]

    /// Builds and verifies everything from `configuration` at `time.now`. The metadata BLOB is the newest (by its `no`)
    /// of the configured file and the last one fetched (`metadataCache`) that verifies; when neither does, the
    /// configured file's error is thrown.
    init(_ configuration: ServerConfiguration, time: any TimeSource) throws(ConfigurationError) {
        relyingParty = RelyingParty(
            id: configuration.relyingPartyID,
            name: configuration.relyingPartyName,
            origins: configuration.acceptedOrigins,
            algorithms: configuration.algorithms,
            time: time
        )
        attestation = configuration.attestation
        metadata = try Self.newestMetadata(configuration, at: time.now)
        metadataTakenAt = time.now
        wellKnown = try WellKnownFiles(configuration.associatedDomains, loadedAt: time.now)
        adminKeys = configuration.adminKeys
    }

    /// Where the last BLOB fetched from `attestation.metadata.url` is kept: in the data folder.
    static func metadataCache(_ configuration: ServerConfiguration) -> String {
        configuration.dataDirectory + "/fido-metadata.jwt"
    }

    private static func newestMetadata(_ configuration: ServerConfiguration, at now: Date) throws(ConfigurationError) -> MetadataBLOB? {
        let attestation = configuration.attestation
        guard attestation.sources.metadata != nil else { return nil }
        let cached = FileManager.default.contents(atPath: metadataCache(configuration)).flatMap { data in
            try? MetadataBLOB(
                compactJWS: String(decoding: data, as: UTF8.self),
                trustedRoots: attestation.material.metadataRoots,
                at: now,
                policy: attestation.metadataPolicy
            )
        }
        do {
            let configured = try attestation.verifiedMetadata(at: now)
            guard let cached, let configured, cached.number > configured.number else { return configured }
            return cached
        } catch {
            guard let cached else { throw error }
            return cached
        }
    }
}
