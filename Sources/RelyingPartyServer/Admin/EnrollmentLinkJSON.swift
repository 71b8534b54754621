import Foundation

/// The answer of `POST /admin/users/{id}/enrollment-links`: the single-use link the app's backend delivers, and when it
/// stops working.
public struct EnrollmentLinkJSON: Encodable, Sendable {
    /// `recovery.enrollmentURL` (the first origin's `/enroll` by default) with `?token=…`.
    public let url: String
    public let expiresAt: Date
}
