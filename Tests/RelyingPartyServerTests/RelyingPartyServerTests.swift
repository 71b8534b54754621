import Testing
@testable import RelyingPartyServer

@Test func moduleBuilds() { #expect(Bool(true)) }
