import CryptoCore
import Foundation

/// A FIDO Metadata Service v3 BLOB (https://mds3.fidoalliance.org/): a compact JWS whose `x5c` chain must end at
/// the FIDO Alliance's BLOB signing root, whose payload lists authenticators with their attestation roots and
/// status reports. Verified once when it is loaded; pure: the caller hands over the text, the root and the time.
public struct MetadataBLOB: Sendable {
    /// `legalHeader`: the terms under which the BLOB may be used.
    public let legalHeader: String
    /// `no`: the serial number of this BLOB.
    public let number: Int
    /// `nextUpdate`: the date by which the next BLOB is published.
    public let nextUpdate: Date
    public let entries: [MetadataEntry]
    public let policy: MetadataPolicy
    private let entriesByAAGUID: [String: Int]
    private let entriesByKeyIdentifier: [String: Int]

    /// JWS algorithms a BLOB may be signed with: RFC 7518's RSA and ECDSA algorithms; `none` and HMAC never.
    public static let signatureAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]

    /// Verifies and parses a BLOB: the `x5c` chain must end at one of `trustedRoots` at `time`, the signature must
    /// verify with the chain's leaf, the payload must have the MDS3 shape, and `nextUpdate` plus the policy's grace
    /// must not be before `time`.
    public init(
        compactJWS text: String,
        trustedRoots: [X509Certificate],
        at time: Date,
        policy: MetadataPolicy = MetadataPolicy()
    ) throws(WebAuthnError) {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(text.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw WebAuthnError(.metadataMalformed, "the metadata BLOB is not a compact JWS: \(error.reason)")
        }
        // FIDO MDS v3.0, Metadata BLOB object processing rules: "If the x5u attribute is missing, the chain should be retrieved
        // from the x5c attribute." x5u is not fetched (the core does no I/O), so a BLOB without x5c is refused.
        let chain: [X509Certificate]
        do {
            guard let certificates = try jws.certificates() else {
                throw WebAuthnError(.metadataUntrustedChain, "the metadata BLOB header has no x5c certificate chain")
            }
            chain = certificates
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw WebAuthnError(.metadataMalformed, "the metadata BLOB x5c chain cannot be read")
        }
        // FIDO MDS v3.0, Metadata BLOB object processing rules: the BLOB signing certificate chain must chain up to the Metadata
        // BLOB signing trust anchor (the FIDO Alliance names GlobalSign Root CA - R3, and Root R46, which x5c reaches by a cross-certificate).
        do {
            _ = try CertificateChainVerifier(trustAnchors: trustedRoots).verify(leaf: chain[0], intermediates: Array(chain.dropFirst()), at: time)
        } catch {
            throw WebAuthnError(.metadataUntrustedChain, "the metadata BLOB signing chain does not end at the configured root: \(error.reason)")
        }
        // FIDO MDS v3.0, Metadata BLOB object processing rules: "Verify the signature of the Metadata BLOB object using the BLOB
        // signing certificate chain"; "The FIDO Server SHOULD ignore the file if the signature is invalid."
        guard let signingKey = try? chain[0].publicKey(), jws.verifySignature(with: signingKey, allowedAlgorithms: Self.signatureAlgorithms) else {
            throw WebAuthnError(.metadataInvalidSignature, "the metadata BLOB signature does not verify with its signing certificate")
        }
        // FIDO MDS v3.0, Metadata BLOB Payload dictionary: legalHeader, no, nextUpdate and entries are required, and each entry
        // carries its statusReports; a payload without them is not used.
        let payload: Payload
        do {
            payload = try JSONDecoder().decode(Payload.self, from: Data(jws.payload))
        } catch {
            throw WebAuthnError(.metadataMalformed, "the metadata BLOB payload is not a MDS3 payload (legalHeader, no, nextUpdate, entries)")
        }
        guard let nextUpdate = ISO8601Time.parseDateOrTime(payload.nextUpdate) else {
            throw WebAuthnError(.metadataMalformed, "the metadata BLOB nextUpdate is not an ISO 8601 date")
        }
        var entries: [MetadataEntry] = []
        for entry in payload.entries {
            entries.append(try Self.entry(entry))
        }
        legalHeader = payload.legalHeader
        number = payload.no
        self.nextUpdate = nextUpdate
        self.entries = entries
        self.policy = policy
        var byAAGUID: [String: Int] = [:]
        var byKeyIdentifier: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            if let aaguid = entry.aaguid { byAAGUID[aaguid] = index }
            for identifier in entry.attestationCertificateKeyIdentifiers { byKeyIdentifier[identifier] = index }
        }
        entriesByAAGUID = byAAGUID
        entriesByKeyIdentifier = byKeyIdentifier
        try requireFresh(at: time)
    }

    /// Refuses the BLOB once `time` is later than `nextUpdate` plus the policy's grace.
    public func requireFresh(at time: Date) throws(WebAuthnError) {
        // FIDO MDS v3.0, Metadata BLOB Payload: nextUpdate is the "ISO-8601 formatted date when the next update will be provided
        // at latest"; a BLOB past it (and past the relying party's grace) may miss revocations, so it is not used.
        guard time <= nextUpdate.addingTimeInterval(policy.staleBLOBGrace) else {
            throw WebAuthnError(.metadataStale, "the metadata BLOB's nextUpdate has passed by more than the allowed grace; download a new one")
        }
    }

    /// The entry for an authenticator: by AAGUID (16 bytes, all zero meaning none), otherwise by the key identifier
    /// of one of its attestation certificates.
    public func entry(aaguid: [UInt8], certificates: [X509Certificate]) -> MetadataEntry? {
        if aaguid.count == 16, aaguid.contains(where: { $0 != 0 }), let index = entriesByAAGUID[AttestedCredentialData.uuidString(aaguid)] {
            return entries[index]
        }
        for certificate in certificates {
            if let index = entriesByKeyIdentifier[certificate.subjectPublicKeyIdentifier] { return entries[index] }
        }
        return nil
    }

    private struct Payload: Decodable {
        let legalHeader: String
        let no: Int
        let nextUpdate: String
        let entries: [Entry]
    }

    private struct Entry: Decodable {
        let aaguid: String?
        let attestationCertificateKeyIdentifiers: [String]?
        let metadataStatement: Statement?
        let statusReports: [Report]
    }

    private struct Statement: Decodable {
        let description: String?
        let attestationRootCertificates: [String]?
        let attestationTypes: [String]?
    }

    private struct Report: Decodable {
        let status: String
        let effectiveDate: String?
    }

    private static func entry(_ entry: Entry) throws(WebAuthnError) -> MetadataEntry {
        var reports: [StatusReport] = []
        for report in entry.statusReports {
            var effectiveDate: Date?
            if let text = report.effectiveDate {
                guard let date = ISO8601Time.parseDateOrTime(text) else {
                    throw WebAuthnError(.metadataMalformed, "a status report's effectiveDate is not an ISO 8601 date")
                }
                effectiveDate = date
            }
            reports.append(StatusReport(status: AuthenticatorStatus(rawValue: report.status), effectiveDate: effectiveDate))
        }
        let statement = entry.metadataStatement.map { statement in
            MetadataStatement(
                description: statement.description,
                attestationRootCertificates: (statement.attestationRootCertificates ?? []).compactMap { text in
                    Data(base64Encoded: text).flatMap { try? X509Certificate(der: Array($0)) }
                },
                attestationTypes: statement.attestationTypes ?? []
            )
        }
        return MetadataEntry(
            aaguid: entry.aaguid?.lowercased(),
            attestationCertificateKeyIdentifiers: (entry.attestationCertificateKeyIdentifiers ?? []).map { $0.lowercased() },
            statement: statement,
            statusReports: reports
        )
    }
}
