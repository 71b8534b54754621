import AccountEvents
import CryptoCore
import Foundation
import Storage
import Testing

@testable import RelyingPartyServer

/// The table of event types in docs/reference/events.md is the code's: every type (`AccountEvent.Kind`) and no other, each with exactly
/// the payload members its events carry besides `userId`.
struct WebhookReadmeTests {
    /// Events of each kind, covering every member its payload can have (both kinds of session).
    static func samples(_ kind: AccountEvent.Kind) -> [AccountEvent] {
        let user: [UInt8] = [1, 2, 3]
        let passkeySession = SessionRecord(
            tokenHash: [UInt8](repeating: 1, count: 32),
            id: [UInt8](repeating: 2, count: 16),
            userID: user,
            method: .passkey,
            credentialID: [9],
            userVerified: true,
            createdAt: Date(),
            expiresAt: Date()
        )
        var appleSession = passkeySession
        appleSession.method = .apple
        appleSession.credentialID = nil
        appleSession.appleSubject = "001.apple"
        var handedOffSession = passkeySession
        (handedOffSession.method, handedOffSession.credentialID) = (.identityProvider, nil)
        (handedOffSession.federatedIssuer, handedOffSession.federatedSubject) = ("https://accounts.google.com", "1234")
        handedOffSession.parentID = [UInt8](repeating: 3, count: 16)
        return switch kind {
        case .userCreated: [.userCreated(userID: user, method: .passkey), .userCreated(userID: user, method: .admin, externalID: "42")]
        case .userDeleted:
            [.userDeleted(userID: user, reason: .self, externalID: "42"), .userDeleted(userID: user, reason: .self, appleRevocation: .queued)]
        case .userUpdated: [.userUpdated(userID: user, changes: ["displayName"], externalID: "42")]
        case .userMerged: [.userMerged(userID: user, previousUserID: [4, 5])]
        case .userDisabled: [.userDisabled(userID: user, externalID: "42")]
        case .userEnabled: [.userEnabled(userID: user, externalID: "42")]
        case .passkeyRegistered:
            [.passkeyRegistered(userID: user, credentialID: [9]), .passkeyRegistered(userID: user, credentialID: [9], upgrade: true)]
        case .passkeyRenamed: [.passkeyRenamed(userID: user, credentialID: [9])]
        case .passkeyDeleted: [.passkeyDeleted(userID: user, credentialID: [9])]
        case .passkeyCloneWarning: [.passkeyCloneWarning(userID: user, credentialID: [9])]
        case .passkeyBackupEligibilityChanged: [.passkeyBackupEligibilityChanged(userID: user, credentialID: [9], backupEligible: true)]
        case .sessionCreated: [.sessionCreated(passkeySession), .sessionCreated(appleSession), .sessionCreated(handedOffSession)]
        case .sessionRevoked:
            [
                .sessionRevoked(passkeySession, reason: .logout), .sessionRevoked(appleSession, reason: .appleConsentRevoked),
                .sessionRevoked(passkeySession, reason: .userDisabled), .sessionRevoked(handedOffSession, reason: .parentEnded),
            ]
        case .appleLinked: [.appleLinked(userID: user, appleUserID: "001.apple", realUserStatus: 2)]
        case .appleConsentRevoked: [.appleConsentRevoked(userID: user, appleUserID: "001.apple")]
        case .appleUnlinked: [.appleUnlinked(userID: user, appleUserID: "001.apple", reason: .user)]
        case .appleTransferred: [.appleTransferred(userID: user, appleUserID: "002.apple", previousAppleUserID: "001.apple")]
        case .appleEmailDisabled: [.appleEmailDisabled(userID: user, appleUserID: "001.apple")]
        case .appleEmailEnabled: [.appleEmailEnabled(userID: user, appleUserID: "001.apple")]
        case .recoveryCodesCreated: [.recoveryCodesCreated(userID: user)]
        case .recoveryCodeUsed: [.recoveryCodeUsed(userID: user, remaining: 9)]
        case .recoveryLinkUsed: [.recoveryLinkUsed(userID: user)]
        case .enrollmentLinkCreated: [.enrollmentLinkCreated(userID: user)]
        case .enrollmentLinkUsed: [.enrollmentLinkUsed(userID: user, credentialID: [9])]
        case .identityLinked: [.identityLinked(userID: user, provider: "google", issuer: "https://accounts.google.com", subject: "1")]
        case .identityUnlinked: [.identityUnlinked(userID: user, provider: "google", issuer: "https://accounts.google.com", subject: "1")]
        case .passwordStuffingSuspected:
            [
                .passwordStuffingSuspected(userID: nil, signal: "accounts_per_address", count: 10, address: "192.0.2.1"),
                .passwordStuffingSuspected(userID: user, signal: "addresses_per_account", count: 10, address: nil),
            ]
        case .emailBounced: [.emailBounced(userID: user, bounce: .hard, provider: "mailgun", suppressed: true)]
        }
    }

    static let page = "reference/events.md"

    /// The page's rows: type → the backticked member names of the payload column, values in parentheses left out.
    static func documentedRows() throws -> [String: Set<String>] {
        var rows: [String: Set<String>] = [:]
        for cells in try DocumentationPage(page).tables(header: "| type | when | payload besides `userId` |") {
            guard cells.count == 3 else { throw DocumentationPage.Missing(page: "docs/" + page, what: "three cells in \(cells)") }
            rows[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = Set(DocumentationPage.codeSpans(cells[2]))
        }
        return rows
    }

    @Test func theEventReferenceListsEveryTypeWithItsPayload() throws {
        let rows = try Self.documentedRows()
        #expect(Set(rows.keys) == Set(AccountEvent.Kind.allCases.map(\.rawValue)), "docs/\(Self.page) must list exactly AccountEvent.Kind")
        for kind in AccountEvent.Kind.allCases {
            let events = Self.samples(kind)
            #expect(events.allSatisfy { $0.kind == kind })
            var members: Set<String> = []
            for event in events {
                let object =
                    try JSONSerialization.jsonObject(with: Data(event.event(at: Date(), random: SystemRandom()).data)) as? [String: Any] ?? [:]
                #expect((object["userId"] != nil) == (event.userID != nil), "userId is left out only of an event that concerns no account")
                members.formUnion(object.keys.filter { $0 != "userId" })
            }
            #expect(rows[kind.rawValue] == members, "docs/\(Self.page): the payload of \(kind.rawValue)")
        }
    }
}
