import Foundation
import Storage

/// The clauses of the store contract for bounces and suppressions (`MailBounceTransactions`,
/// `MailOutboxStore.mailSuppressions`): a bounce found by Message-ID or by recipient, recorded on its message; a
/// suppressed address's mail queued as `suppressed`, never claimed; suppressions listed and lifted.
extension StoreContract {
    static let mailBounceChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "mail bounces: found by Message-ID or newest sent to the recipient, recorded", run: bouncesAreFoundAndRecorded),
        StoreContractCheck(name: "mail bounces: a suppressed address's mail is queued suppressed, never sent", run: suppressedMailIsNeverSent),
        StoreContractCheck(name: "mail bounces: suppressions are listed, kept first, lifted, bounded", run: suppressionsAreListedAndLifted),
    ]

    static func send(_ store: any PasskeyStore, _ id: Int64, at seconds: TimeInterval) throws {
        let claimed = try store.claimMail(owner: "bounces", now: at(seconds), leaseUntil: at(seconds + 30), limit: 10)
        try expect(claimed.contains { $0.id == id }, "message \(id) claimed")
        try store.recordMailOutcome(id: id, .sent, owner: "bounces", now: at(seconds))
        for other in claimed where other.id != id {
            try store.recordMailOutcome(
                id: other.id,
                .retry(nextAttemptAt: at(3_600), error: "later", replyCode: nil),
                owner: "bounces",
                now: at(seconds)
            )
        }
    }

    public static func bouncesAreFoundAndRecorded(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var older = mail(1)
        older.recipient = "Ada@Example.org"
        var newer = mail(2, at: 1)
        newer.recipient = "ada@example.org"
        let ids = try enqueue(store, [older, newer, mail(3, at: 2)])
        try send(store, ids[0], at: 0)
        try send(store, ids[1], at: 1)
        try store.transaction { transaction throws(StorageError) in
            try expectInBody(try transaction.mail(messageID: "message-1")?.id == ids[0], "found by its Message-ID")
            try expectInBody(try transaction.mail(messageID: "message-1")?.message == nil, "without its body")
            try expectInBody(try transaction.mail(messageID: "message-9") == nil, "an unknown Message-ID finds none")
            try expectInBody(try transaction.latestSentMail(recipient: "ADA@example.ORG")?.id == ids[1], "the newest sent, any case")
            try expectInBody(try transaction.latestSentMail(recipient: "person3@example.org") == nil, "a pending message is not sent")
            try expectInBody(try transaction.latestSentMail(recipient: "nobody@example.org") == nil, "no message to that address")
            let bounce = MailBounce(kind: .hard, at: at(5), reason: "550 5.1.1 mailbox unknown")
            try expectInBody(try transaction.recordMailBounce(id: ids[1], bounce), "recorded")
            try expectInBody(!(try transaction.recordMailBounce(id: 999_999, bounce)), "no such message")
            try expectInBody(try transaction.mail(messageID: "message-2")?.bounce == bounce, "read back in the transaction")
        }
        let listed = try store.mailOutbox(status: .sent, after: 0, limit: 10)
        try expectEqual(listed.map(\.bounce?.kind), [nil, .hard], "on the listing")
        try expect(
            listed[1].bounce.map { abs($0.at.timeIntervalSince(at(5))) < 0.001 && $0.reason == "550 5.1.1 mailbox unknown" } ?? false,
            "when, why"
        )
        // A later report replaces the earlier one; a reason over its bound is refused and changes nothing.
        try store.transaction { transaction throws(StorageError) in
            _ = try transaction.recordMailBounce(id: ids[1], MailBounce(kind: .complaint, at: at(6), reason: "complaint"))
        }
        try expectStorageError(.invalidRecord, "a reason over its bound") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                _ = try transaction.recordMailBounce(id: ids[1], MailBounce(kind: .soft, at: at(7), reason: String(repeating: "r", count: 201)))
            }
        }
        try expectEqual(try store.mailOutbox(status: .sent, after: 0, limit: 10)[1].bounce?.kind, .complaint, "the later report")
    }

    public static func suppressedMailIsNeverSent(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let suppression = MailSuppression(address: "Person1@example.org", kind: .hard, reason: "550", mailID: nil, createdAt: at(0))
        try store.transaction { transaction throws(StorageError) in
            try expectInBody(try transaction.suppressMail(suppression), "newly suppressed")
        }
        let ids = try enqueue(store, [mail(1), mail(2)])
        let listed = try store.mailOutbox(status: nil, after: 0, limit: 10)
        try expectEqual(listed.map(\.status), [.suppressed, .pending], "person1 is suppressed (any case), person2 is not")
        try expectEqual(listed[0].nextAttemptAt, nil, "never due")
        let claimed = try store.claimMail(owner: "a", now: at(10), leaseUntil: at(40), limit: 10)
        try expectEqual(claimed.map(\.id), [ids[1]], "the suppressed message is never claimed")
        try expectEqual(try store.mailOutboxCounts(), [.suppressed: 1, .pending: 1], "counted apart")
        // Registration notices honour it too.
        try store.seedUser(StoreSamples.user(1), credential: StoreSamples.credential(1, owner: 1))
        var second = StoreSamples.credential(2, owner: 1)
        second.userID = StoreSamples.userID(1)
        var session = StoreSamples.session(2, owner: 1)
        session.credentialID = second.id
        try store.completeRegistration(newUser: nil, credential: second, session: session, events: [], mail: [notice(7, owner: 1)])
        let notice = try store.mailOutbox(status: nil, after: ids[1], limit: 10)
        try expectEqual(notice.map(\.status), [.suppressed], "a registration's notice to a suppressed address")
        // Lifted: the next message is pending again.
        _ = try store.transaction { transaction throws(StorageError) in try transaction.deleteMailSuppression(address: "person1@example.org") }
        let again = try enqueue(store, [mail(1, at: 20)])
        try expectEqual(try store.mailOutbox(status: nil, after: again[0] - 1, limit: 1).map(\.status), [.pending], "sent again once lifted")
        try expectEqual(try store.purgeMail(before: at(1_000)) >= 1, true, "suppressed rows are purged with the finished ones")
    }

    public static func suppressionsAreListedAndLifted(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let addresses = ["c@example.org", "A@example.org", "b@example.org"]
        try store.transaction { transaction throws(StorageError) in
            for (index, address) in addresses.enumerated() {
                let kind: MailBounceKind = index == 0 ? .complaint : .hard
                _ = try transaction.suppressMail(
                    MailSuppression(address: address, kind: kind, reason: "r\(index)", mailID: Int64(index), createdAt: at(0))
                )
            }
            let again = MailSuppression(address: "a@EXAMPLE.org", kind: .complaint, reason: "later", mailID: nil, createdAt: at(9))
            try expectInBody(!(try transaction.suppressMail(again)), "an address suppressed already keeps its first suppression")
            try expectInBody(try transaction.mailSuppression(address: "a@example.org")?.reason == "r1", "the first")
        }
        try expectEqual(try store.mailSuppressions(after: "", limit: 2).map(\.address), ["A@example.org", "b@example.org"], "by key")
        try expectEqual(try store.mailSuppressions(after: "b@example.org", limit: 2).map(\.address), ["c@example.org"], "the next page")
        let first = try store.mailSuppressions(after: "", limit: 1)[0]
        try expectEqual(first.kind, .hard, "kind")
        try expectEqual(first.mailID, 1, "the message")
        try expect(abs(first.createdAt.timeIntervalSince(at(0))) < 0.001, "when")
        let lifted = try store.transaction { transaction throws(StorageError) in try transaction.deleteMailSuppression(address: "C@EXAMPLE.ORG") }
        try expectEqual(lifted?.kind, .complaint, "lifted, any case")
        let none = try store.transaction { transaction throws(StorageError) in try transaction.deleteMailSuppression(address: "c@example.org") }
        try expectEqual(none, nil, "lifted once")
        try expectEqual(try store.mailSuppressions(after: "", limit: 10).count, 2, "two left")
        try expectStorageError(.invalidRecord, "an empty address") { () throws(StorageError) in
            try store.transaction { transaction throws(StorageError) in
                _ = try transaction.suppressMail(MailSuppression(address: "", kind: .hard, reason: "", mailID: nil, createdAt: at(0)))
            }
        }
    }
}
