/// One entry of a metadata BLOB payload (FIDO MDS v3.0 "Metadata BLOB Payload Entry" dictionary).
public struct MetadataEntry: Sendable {
    /// The AAGUID in lowercase canonical form; nil for U2F authenticators, which are named by key identifiers.
    public let aaguid: String?
    /// Lowercase hex SHA-1 of the attestation certificates' subject public keys.
    public let attestationCertificateKeyIdentifiers: [String]
    public let statement: MetadataStatement?
    public let statusReports: [StatusReport]

    public init(aaguid: String?, attestationCertificateKeyIdentifiers: [String], statement: MetadataStatement?, statusReports: [StatusReport]) {
        self.aaguid = aaguid
        self.attestationCertificateKeyIdentifiers = attestationCertificateKeyIdentifiers
        self.statement = statement
        self.statusReports = statusReports
    }

    /// The status of the report with the latest `effectiveDate` (a report without a date counts as the earliest;
    /// among equal dates the one listed last wins); nil when there are no reports.
    public var latestStatus: AuthenticatorStatus? {
        var latest: StatusReport?
        for report in statusReports {
            guard let current = latest else {
                latest = report
                continue
            }
            switch (current.effectiveDate, report.effectiveDate) {
            case (_, nil) where current.effectiveDate != nil: continue
            case (let currentDate?, let reportDate?) where reportDate < currentDate: continue
            default: latest = report
            }
        }
        return latest?.status
    }
}
