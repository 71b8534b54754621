import Foundation

/// One entry of `statusReports` (FIDO MDS v3.0 "StatusReport" dictionary): the status and the date it took effect.
public struct StatusReport: Sendable, Equatable {
    public let status: AuthenticatorStatus
    /// `effectiveDate` ("ISO-8601 formatted date since when the status code was set"); nil when the report has none.
    public let effectiveDate: Date?

    public init(status: AuthenticatorStatus, effectiveDate: Date?) {
        self.status = status
        self.effectiveDate = effectiveDate
    }
}
