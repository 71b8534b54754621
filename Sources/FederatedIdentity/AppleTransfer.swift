import AccountEvents
import ConfigurationReading
import CryptoCore
import Foundation
import Observability
import Storage

/// Apple's user migration for an app moving between developer teams (`passkeyd apple transfer-out`, `transfer-in`),
/// both sides, through the `AppleService` seam (the server's outbound client in production).
///
/// - Out, on the sending team's server: an access token (`tokenURL`, `grant_type=client_credentials`,
///   `scope=user.migration`), then for each identity `migrationURL` with `sub`, `target`, `client_id`, `client_secret`
///   → its `transfer_sub`, stored as the identity's `transferSubject`.
/// - In, on the recipient team's server (the same database, or a copy): for each identity with a transfer subject not
///   yet re-keyed, `migrationURL` with `transfer_sub` → the team's `sub` (and email), and the identity is re-keyed to
///   it (`apple.transferred`).
///
/// The state is the identities' own (`transferSubject`, `transferredAt`), so a run is resumable and idempotent: an
/// interrupted or partly failed run is run again and does only what is left. Calls are paced (`interval` between two),
/// and a failure of one identity is counted and logged (status only, never a `sub`), never fatal.
public final class AppleTransfer: Sendable {
    /// Which side of the transfer.
    public enum Direction: Sendable, Equatable {
        /// Ask Apple for each identity's transfer identifier for `recipientTeam`.
        case out(recipientTeam: String)
        /// Exchange each transfer identifier for this team's `sub`.
        case `in`
    }

    /// What a run did.
    public struct Report: Sendable, Equatable {
        /// Identities looked at.
        public var seen = 0
        /// Transferred by this run.
        public var transferred = 0
        /// Done by an earlier run, or not concerned.
        public var skipped = 0
        /// Failed (Apple refused or could not be reached, or the identity changed meanwhile); a new run retries them.
        public var failed = 0

        public init() {}
    }

    /// Why a run could not start or stopped: no access token, or the store failed.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    package static let pageSize = 100

    private let integration: AppleIntegration
    private let service: any AppleService
    private let store: any PasskeyStore
    private let time: any TimeSource
    /// Makes the events' IDs.
    private let random: any RandomSource
    private let log: Logger

    /// - Throws: `ConfigurationError` when the `.p8` key or the refresh token key is unusable.
    public init(
        configuration: AppleConfiguration,
        setup: AppleSetup,
        store: any PasskeyStore,
        time: any TimeSource = SystemTime(),
        random: any RandomSource = SystemRandom(),
        log: Logger
    ) throws(ConfigurationError) {
        integration = try AppleIntegration(configuration: configuration, setup: setup, store: store, time: time, log: log)
        service = setup.service
        self.store = store
        self.time = time
        self.random = random
        self.log = log
    }

    /// The client ID the migration calls use: the app's primary identifier (the first bundle ID, else Services ID).
    package var clientID: String { integration.configuration.audiences[0] }

    /// Runs the transfer over every identity, `pause(interval)` between two calls to Apple, `progress` after each
    /// identity. The identities still to do are listed first (a re-keyed identity takes another place in the order).
    public func run(
        _ direction: Direction,
        interval: TimeInterval,
        pause: (TimeInterval) -> Void = { Thread.sleep(forTimeInterval: $0) },
        progress: (Report) -> Void = { _ in }
    ) throws(Failure) -> Report {
        var report = Report()
        var pending: [AppleIdentityRecord] = []
        var cursor: String?
        while true {
            let page: [AppleIdentityRecord]
            do {
                page = try store.transaction { transaction throws(StorageError) in
                    try transaction.appleIdentities(after: cursor, limit: Self.pageSize)
                }
            } catch {
                throw Failure(description: "reading the Apple identities: \(error)")
            }
            guard let last = page.last else { break }
            cursor = last.subject
            pending += page.filter { Self.isPending($0, direction) }
            report.skipped += page.count - page.filter { Self.isPending($0, direction) }.count
        }
        report.seen = report.skipped
        progress(report)
        guard !pending.isEmpty else { return report }
        var accessToken = try self.accessToken()
        for (index, identity) in pending.enumerated() {
            if index > 0 { pause(interval) }
            report.seen += 1
            var reply = migrationInfo(for: identity, direction, accessToken: accessToken)
            if reply.status == 401 {
                // The access token expired during a long run: one new token, one retry.
                accessToken = try self.accessToken()
                reply = migrationInfo(for: identity, direction, accessToken: accessToken)
            }
            if record(reply, for: identity, direction) {
                report.transferred += 1
            } else {
                report.failed += 1
            }
            progress(report)
        }
        return report
    }

    /// Whether the identity still has this step of the transfer to do.
    package static func isPending(_ identity: AppleIdentityRecord, _ direction: Direction) -> Bool {
        switch direction {
        case .out: identity.transferSubject == nil || identity.transferredAt != nil
        case .in: identity.transferSubject != nil && identity.transferredAt == nil
        }
    }

    private struct TokenReply: Decodable {
        package let accessToken: String

        package enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
        }
    }

    private func accessToken() throws(Failure) -> String {
        guard let secret = integration.clientSecret(for: clientID) else { throw Failure(description: "cannot make a client secret") }
        let reply = service.requestMigrationAccessToken(clientID: clientID, clientSecret: secret)
        guard reply.status == 200, let token = try? JSONDecoder().decode(TokenReply.self, from: Data(reply.body)), !token.accessToken.isEmpty
        else {
            throw Failure(
                description: "Apple gave no migration access token (\(reply.status.map { "status \($0)" } ?? "unreachable")); "
                    + "is the app in its 60-day transfer period, and the key the team's?"
            )
        }
        return token.accessToken
    }

    private func migrationInfo(for identity: AppleIdentityRecord, _ direction: Direction, accessToken: String) -> AppleReply {
        guard let secret = integration.clientSecret(for: clientID) else { return .unreachable }
        switch direction {
        case .out(let team):
            return service.migrationInfo(
                [("sub", identity.subject), ("target", team), ("client_id", clientID), ("client_secret", secret)],
                accessToken: accessToken
            )
        case .in:
            return service.migrationInfo(
                [("transfer_sub", identity.transferSubject ?? ""), ("client_id", clientID), ("client_secret", secret)],
                accessToken: accessToken
            )
        }
    }

    private struct MigrationReply: Decodable {
        package let transferSubject: String?
        package let subject: String?
        package let email: String?
        package let isPrivateEmail: Bool?

        package enum CodingKeys: String, CodingKey {
            case transferSubject = "transfer_sub"
            case subject = "sub"
            case email
            case isPrivateEmail = "is_private_email"
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            transferSubject = try container.decodeIfPresent(String.self, forKey: .transferSubject)
            subject = try container.decodeIfPresent(String.self, forKey: .subject)
            email = try container.decodeIfPresent(String.self, forKey: .email)
            // Apple sends booleans as JSON booleans or as "true"/"false".
            isPrivateEmail =
                (try? container.decodeIfPresent(Bool.self, forKey: .isPrivateEmail))
                ?? (try? container.decodeIfPresent(String.self, forKey: .isPrivateEmail)).flatMap { $0.map { $0 == "true" } }
        }
    }

    /// Stores what Apple answered for the identity; false (logged) when there is nothing to store or it cannot be.
    private func record(_ reply: AppleReply, for identity: AppleIdentityRecord, _ direction: Direction) -> Bool {
        guard reply.status == 200, let answer = try? JSONDecoder().decode(MigrationReply.self, from: Data(reply.body)) else {
            log.warning("apple transfer: an identity failed (\(reply.status.map { "status \($0)" } ?? "unreachable"))", event: "apple")
            return false
        }
        let now = time.now
        let outcome: String?
        do {
            outcome = try store.transaction { transaction throws(StorageError) -> String? in
                // The identity as it is now: another run, a sign-in or a deletion may have changed it meanwhile.
                guard let current = try transaction.appleIdentity(subject: identity.subject), Self.isPending(current, direction) else {
                    return "it changed meanwhile"
                }
                var updated = current
                switch direction {
                case .out:
                    guard let transfer = answer.transferSubject, !transfer.isEmpty else { return "no transfer_sub in Apple's answer" }
                    updated.transferSubject = transfer
                    updated.transferredAt = nil
                    _ = try transaction.updateAppleIdentity(updated, subject: current.subject)
                case .in:
                    guard let subject = answer.subject, !subject.isEmpty else { return "no sub in Apple's answer" }
                    guard try transaction.appleIdentity(subject: subject) == nil else { return "the new sub already has an account" }
                    updated.subject = subject
                    updated.transferredAt = now
                    if let email = answer.email {
                        updated.email = email
                        updated.isPrivateEmail = answer.isPrivateEmail ?? updated.isPrivateEmail
                    }
                    _ = try transaction.reKeyAppleIdentity(updated, from: current.subject)
                    let event = AccountEvent.appleTransferred(userID: current.userID, appleUserID: subject, previousAppleUserID: current.subject)
                    try transaction.appendEvent(event.event(at: now, random: random))
                    if let followed = try updated.carryRelayAddress(from: current, in: transaction) {
                        try transaction.appendEvent(followed.event(at: now, random: random))
                    }
                }
                return nil
            }
        } catch {
            outcome = "storage: \(error.code)"
        }
        if let outcome { log.warning("apple transfer: an identity failed (\(outcome))", event: "apple") }
        return outcome == nil
    }
}
