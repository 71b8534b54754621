import Dispatch
import Foundation
import Storage
import Synchronization

/// The clauses of the store contract for the mail outbox (`MailOutboxStore`, `MailOutboxTransactions`).
extension StoreContract {
    static let mailOutboxChecks: [StoreContractCheck] = [
        StoreContractCheck(name: "mail: queued in a transaction, claimed, sent, its body deleted", run: mailIsQueuedClaimedAndSent),
        StoreContractCheck(name: "mail: a transaction that fails queues nothing", run: mailOfAFailedTransactionIsNotQueued),
        StoreContractCheck(name: "mail: claims are leases; only the owner records", run: mailClaimsAreLeases),
        StoreContractCheck(name: "mail: retry waits, dead deletes the body", run: mailRetriesAndDies),
        StoreContractCheck(name: "mail: listing, counts, purge, ids never reused", run: mailIsListedCountedAndPurged),
        StoreContractCheck(name: "mail: oversized or empty fields are refused", run: mailBoundsAreChecked),
        StoreContractCheck(name: "mail: 8 threads claiming: each message to one of them", run: concurrentMailClaimsAreExclusive),
    ]

    static func mail(_ number: Int, at offset: TimeInterval = 0) -> NewMail {
        NewMail(
            kind: "securityNotice",
            recipient: "person\(number)@example.org",
            userID: StoreSamples.userID(UInt8(number % 250)),
            messageID: "message-\(number)",
            message: Array("Subject: \(number)\r\n\r\nbody with a token \(number)\r\n".utf8),
            createdAt: StoreSamples.now.addingTimeInterval(offset)
        )
    }

    @discardableResult
    static func enqueue(_ store: any PasskeyStore, _ mails: [NewMail]) throws(StorageError) -> [Int64] {
        try store.transaction { transaction throws(StorageError) -> [Int64] in
            var ids: [Int64] = []
            for mail in mails { ids.append(try transaction.enqueueMail(mail)) }
            return ids
        }
    }

    static func at(_ seconds: TimeInterval) -> Date { StoreSamples.now.addingTimeInterval(seconds) }

    public static func mailIsQueuedClaimedAndSent(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let ids = try enqueue(store, [mail(1), mail(2, at: 1)])
        try expect(ids[0] < ids[1], "ids grow in creation order")
        try expectEqual(try store.claimMail(owner: "a", now: at(0.5), leaseUntil: at(30), limit: 10).map(\.id), [ids[0]], "only the due message")
        let claimed = try store.claimMail(owner: "a", now: at(2), leaseUntil: at(30), limit: 10)
        try expectEqual(claimed.map(\.id), [ids[1]], "the second once due, the first still leased")
        try expectEqual(claimed[0].message, mail(2).message, "the claim carries the rendered message")
        try expectEqual(claimed[0].recipient, "person2@example.org", "recipient")
        try expectEqual(claimed[0].leaseOwner, "a", "lease owner")
        try store.recordMailOutcome(id: ids[1], .sent, owner: "a", now: at(3))
        let listed = try store.mailOutbox(status: nil, after: 0, limit: 10)
        try expectEqual(listed.map(\.status), [.pending, .sent], "statuses")
        try expectEqual(listed.map(\.message), [nil, nil], "listings never carry a body")
        let sent = listed[1]
        try expectEqual(sent.attempts, 1, "attempts")
        try expectEqual(sent.nextAttemptAt, nil, "a sent message is not due")
        try expectEqual(sent.leaseOwner, nil, "the lease is cleared")
        try expectEqual(sent.messageID, "message-2", "message ID")
        try expectEqual(sent.userID, StoreSamples.userID(2), "user")
        try expect(sent.lastAttemptAt.map { abs($0.timeIntervalSince(at(3))) < 0.001 } ?? false, "last attempt time")
        try expectEqual(
            try store.claimMail(owner: "b", now: at(100), leaseUntil: at(130), limit: 10).map(\.id),
            [ids[0]],
            "a sent message is never claimed again"
        )
        try store.recordMailOutcome(id: ids[0], .sent, owner: "b", now: at(101))
        let bodies = try store.claimMail(owner: "c", now: at(1_000), leaseUntil: at(1_030), limit: 10)
        try expectEqual(bodies, [], "nothing left to send")
    }

    public static func mailOfAFailedTransactionIsNotQueued(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        do throws(StorageError) {
            _ = try store.transaction { transaction throws(StorageError) -> Int in
                _ = try transaction.enqueueMail(mail(1))
                throw StorageError(.unavailable, "the change failed")
            }
        } catch {
            try expectEqual(error.code, .unavailable, "the transaction's own error")
        }
        try expectEqual(try store.mailOutbox(status: nil, after: 0, limit: 10), [], "nothing queued")
    }

    public static func mailClaimsAreLeases(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let id = try enqueue(store, [mail(1)])[0]
        try expectEqual(try store.claimMail(owner: "a", now: at(1), leaseUntil: at(10), limit: 5).count, 1, "claimed by a")
        try expectEqual(try store.claimMail(owner: "b", now: at(9), leaseUntil: at(20), limit: 5), [], "not while a holds it")
        let taken = try store.claimMail(owner: "b", now: at(10), leaseUntil: at(20), limit: 5)
        try expectEqual(taken.map(\.id), [id], "b takes it over when a's lease ended (a died mid-send)")
        try expectEqual(taken.first?.message, mail(1).message, "with its body")
        try store.recordMailOutcome(id: id, .sent, owner: "a", now: at(11))
        try expectEqual(try store.mailOutbox(status: .pending, after: 0, limit: 5).map(\.id), [id], "a's late outcome changes nothing")
        try store.recordMailOutcome(id: id, .sent, owner: "b", now: at(12))
        try expectEqual(try store.mailOutbox(status: .sent, after: 0, limit: 5).map(\.attempts), [1], "b's outcome counts once")
    }

    public static func mailRetriesAndDies(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let id = try enqueue(store, [mail(1)])[0]
        _ = try store.claimMail(owner: "a", now: at(1), leaseUntil: at(10), limit: 5)
        try store.recordMailOutcome(id: id, .retry(nextAttemptAt: at(60), error: "mail.timeout", replyCode: nil), owner: "a", now: at(2))
        try expectEqual(try store.claimMail(owner: "a", now: at(59), leaseUntil: at(70), limit: 5), [], "not before its next attempt")
        let again = try store.claimMail(owner: "a", now: at(60), leaseUntil: at(70), limit: 5)
        try expectEqual(again.map(\.attempts), [1], "one attempt made")
        try expectEqual(again.first?.lastError, "mail.timeout", "the failure is kept")
        try expectEqual(again.first?.message, mail(1).message, "a retried message keeps its body")
        try store.recordMailOutcome(id: id, .dead(error: "mail.rejectedPermanently", replyCode: 550), owner: "a", now: at(61))
        let dead = try store.mailOutbox(status: .dead, after: 0, limit: 5)
        try expectEqual(dead.map(\.attempts), [2], "two attempts")
        try expectEqual(dead.first?.lastReplyCode, 550, "reply code")
        try expectEqual(dead.first?.lastError, "mail.rejectedPermanently", "error")
        try expectEqual(try store.claimMail(owner: "a", now: at(10_000), leaseUntil: at(10_010), limit: 5), [], "a dead message is never claimed")
        try store.recordMailOutcome(id: id, .sent, owner: "a", now: at(62))
        try expectEqual(try store.mailOutbox(status: .dead, after: 0, limit: 5).count, 1, "an outcome for a finished message changes nothing")
    }

    public static func mailIsListedCountedAndPurged(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        let ids = try enqueue(store, (1...5).map { mail($0) })
        _ = try store.claimMail(owner: "a", now: at(1), leaseUntil: at(10), limit: 3)
        try store.recordMailOutcome(id: ids[0], .sent, owner: "a", now: at(2))
        try store.recordMailOutcome(id: ids[1], .dead(error: "mail.rejectedPermanently", replyCode: 554), owner: "a", now: at(3))
        try expectEqual(try store.mailOutboxCounts(), [.pending: 3, .sent: 1, .dead: 1], "counts")
        try expectEqual(try store.mailOutbox(status: .pending, after: 0, limit: 10).map(\.id), Array(ids[2...]), "pending")
        try expectEqual(try store.mailOutbox(status: nil, after: ids[1], limit: 2).map(\.id), [ids[2], ids[3]], "a page after an id")
        try expectEqual(try store.purgeMail(before: at(2.5)), 1, "the sent one is old enough")
        try expectEqual(try store.purgeMail(before: at(1_000)), 1, "then the dead one; pending ones stay")
        try expectEqual(try store.mailOutboxCounts(), [.pending: 3], "counts after the purge")
        for id in ids[2...] {
            _ = try store.claimMail(owner: "b", now: at(20), leaseUntil: at(30), limit: 5)
            try store.recordMailOutcome(id: id, .sent, owner: "b", now: at(21))
        }
        try expectEqual(try store.purgeMail(before: at(1_000)), 3, "every finished message")
        let next = try enqueue(store, [mail(6)])[0]
        try expect(next > ids[4], "ids are never reused, even after a purge emptied the outbox")
    }

    public static func mailBoundsAreChecked(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        var tooLarge = mail(1)
        tooLarge.message = [UInt8](repeating: 0x41, count: NewMail.maximumMessageBytes + 1)
        var noRecipient = mail(2)
        noRecipient.recipient = ""
        var longKind = mail(3)
        longKind.kind = String(repeating: "k", count: NewMail.maximumKindLength + 1)
        for invalid in [tooLarge, noRecipient, longKind] {
            try expectStorageError(.invalidRecord, "an invalid message") { () throws(StorageError) in
                _ = try store.transaction { transaction throws(StorageError) in try transaction.enqueueMail(invalid) }
            }
        }
        try expectEqual(try store.mailOutbox(status: nil, after: 0, limit: 10), [], "nothing queued")
    }

    public static func concurrentMailClaimsAreExclusive(_ makeStore: StoreFactory) throws {
        let store = try makeStore()
        try enqueue(store, (1...40).map { mail($0) })
        let claimedIDs = Mutex<[Int64]>([])
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<10 {
                do throws(StorageError) {
                    let claimed = try store.claimMail(owner: "worker-\(worker)", now: at(100 + Double(round) * 0.01), leaseUntil: at(1_000), limit: 3)
                    claimedIDs.withLock { $0 += claimed.map(\.id) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        try expectEqual(failures.withLock { $0 }, [], "no claim failed")
        let ids = claimedIDs.withLock { $0 }
        try expectEqual(ids.count, Set(ids).count, "no message was claimed twice")
        try expectEqual(ids.count, 40, "every message was claimed")
    }
}
