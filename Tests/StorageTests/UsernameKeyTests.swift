import Foundation
import Storage
import Testing

@Suite("Username keys")
struct UsernameKeyTests {
    @Test(arguments: [
        ("Frank", "frank"), ("FRANK", "frank"), ("fRaNk", "frank"), ("Ｆｒａｎｋ", "frank"), ("ＦＲＡＮＫ", "frank"),
        ("STRAßE", "straße"), ("STRASSE", "strasse"), ("ILIK", "ilik"), ("ılık", "ılık"), ("İlik", "i\u{307}lik"),
        ("JOSE\u{301}", "josé"), ("ﬁle", "file"), ("Ⅻ", "xii"),
    ])
    func nameKeys(name: String, key: String) {
        #expect(UserRecord.nameKey(of: name) == key)
        #expect(UserRecord.nameKey(of: key) == key, "a key is its own key")
    }

    @Test func theRecordsKeyIsItsNamesKey() {
        let user = UserRecord(id: [1], name: "Frank", displayName: "Frank", appAccountToken: UUID(), createdAt: Date())
        #expect(user.nameKey == "frank")
    }

    @Test func aMigratedNameTakesTheFirstFreeSuffixWithinTheBound() {
        #expect(UserRecord.migratedName("Frank", maximumBytes: 64) { $0 == "frank-2" } == "Frank-3")
        let long = String(repeating: "é", count: 32)  // 64 bytes
        let renamed = UserRecord.migratedName(long, maximumBytes: 64) { _ in false }
        #expect(renamed == String(repeating: "é", count: 31) + "-2")
        #expect(renamed.utf8.count <= 64)
        let longer = String(repeating: "a", count: 80)
        #expect(
            UserRecord.migratedName(longer, maximumBytes: 64) { _ in false } == String(repeating: "a", count: 78) + "-2",
            "a longer legacy name keeps its length"
        )
    }

    /// The oldest account keeps the name (by creation, then user handle); the others are suffixed past every taken key.
    @Test func collisionsAreSettledOldestFirst() {
        let accounts = [
            NameKeyMigration.Account(id: [3], name: "FRANK", createdAt: Date(timeIntervalSinceReferenceDate: 20)),
            NameKeyMigration.Account(id: [1], name: "Frank", createdAt: Date(timeIntervalSinceReferenceDate: 10)),
            NameKeyMigration.Account(id: [2], name: "frank", createdAt: Date(timeIntervalSinceReferenceDate: 10)),
            NameKeyMigration.Account(id: [4], name: "frank-2", createdAt: Date(timeIntervalSinceReferenceDate: 30)),
        ]
        let rows = NameKeyMigration(accounts: accounts).rows
        #expect(rows.map(\.id) == [[1], [2], [3], [4]])
        #expect(rows.map(\.name) == ["Frank", "frank-3", "FRANK-4", "frank-2"])
        #expect(rows.map(\.nameKey) == ["frank", "frank-3", "frank-4", "frank-2"])
        #expect(rows.map(\.renamed) == [false, true, true, false])
        #expect(NameKeyMigration(accounts: accounts.reversed()).rows == rows, "whatever order the rows are read in")
    }
}
