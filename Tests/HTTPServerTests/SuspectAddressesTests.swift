import Testing

@testable import HTTPServer

/// The table of addresses with recent refusals behind the suspect lane: the count, the window, the bound.
struct SuspectAddressesTests {
    static let lane = SuspectLane(refusals: 3, seconds: 600, maximumAddresses: 1000)

    @Test func anAddressIsASuspectAfterItsRefusalsUntilTheWindowPasses() {
        let table = SuspectAddresses(Self.lane, now: 0)
        table.noteRefusal("192.0.2.1", now: 10)
        table.noteRefusal("192.0.2.1", now: 20)
        #expect(!table.isSuspect("192.0.2.1", now: 20))
        table.noteRefusal("192.0.2.1", now: 30)
        #expect(table.isSuspect("192.0.2.1", now: 30))
        #expect(!table.isSuspect("192.0.2.2", now: 30))
        #expect(table.isSuspect("192.0.2.1", now: 630))
        #expect(!table.isSuspect("192.0.2.1", now: 631))
        #expect(table.suspectCount(now: 30) == 1)
    }

    /// A refusal more than the window after the one before starts the count again.
    @Test func refusalsFarApartDoNotAddUp() {
        let table = SuspectAddresses(Self.lane, now: 0)
        for now in [0, 700, 1400] { table.noteRefusal("2001:db8::/64", now: now) }
        #expect(!table.isSuspect("2001:db8::/64", now: 1400))
        table.noteRefusal("2001:db8::/64", now: 1401)
        table.noteRefusal("2001:db8::/64", now: 1402)
        #expect(table.isSuspect("2001:db8::/64", now: 1402))
    }

    /// Refusals from ten times more addresses than the table holds: it never holds more than `maximumAddresses`, and
    /// the addresses refused last are still suspects (the oldest generation went first).
    @Test func theTableIsBounded() {
        let table = SuspectAddresses(Self.lane, now: 0)
        for index in 0..<10_000 {
            for _ in 0..<3 { table.noteRefusal("10.0.\(index / 256).\(index % 256)", now: 5) }
            #expect(table.count <= 1000)
        }
        #expect(table.isSuspect("10.0.39.15", now: 5))
        #expect(!table.isSuspect("10.0.0.0", now: 5))
    }

    /// Only refusals count: `400`, `401` and `403`. Not `429`: a shed client retrying after the lane's own `429`
    /// would otherwise stay a suspect for as long as it retries, and the rate limits' `429` costs the server little.
    @Test func theRefusalsAreTheClientErrorsOfARequestNotDone() {
        #expect([400, 401, 403].allSatisfy(SuspectLane.isRefusal))
        #expect(![200, 204, 302, 404, 405, 409, 413, 429, 500, 503].contains(where: SuspectLane.isRefusal))
    }
}
