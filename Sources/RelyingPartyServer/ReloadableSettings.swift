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
    /// The encoded associated-domain files.
    var wellKnown: WellKnownFiles

    /// Builds and verifies everything from `configuration` at `time.now`; the metadata BLOB is verified as at start-up.
    init(_ configuration: ServerConfiguration, time: any TimeSource) throws(ConfigurationError) {
        relyingParty = RelyingParty(
            id: configuration.relyingPartyID,
            name: configuration.relyingPartyName,
            origins: configuration.acceptedOrigins,
            algorithms: configuration.algorithms,
            time: time
        )
        attestation = configuration.attestation
        metadata = try configuration.attestation.verifiedMetadata(at: time.now)
        wellKnown = try WellKnownFiles(configuration.associatedDomains, loadedAt: time.now)
    }
}
