/// What `RestorableStore.endGrantsAfterRestore` ended.
public struct RestoreRevocations: Sendable, Equatable {
    /// Live sessions ended (each with its event).
    public var sessions: Int
    /// OpenID grants deleted, with their refresh tokens.
    public var oauthGrants: Int
    /// Enrollment links deleted, and the links and codes sent by email (address verifications, recovery links).
    public var enrollmentLinks: Int
    /// Challenges not yet spent deleted, and authorization codes not yet used.
    public var challenges: Int

    public init(sessions: Int = 0, oauthGrants: Int = 0, enrollmentLinks: Int = 0, challenges: Int = 0) {
        self.sessions = sessions
        self.oauthGrants = oauthGrants
        self.enrollmentLinks = enrollmentLinks
        self.challenges = challenges
    }
}
