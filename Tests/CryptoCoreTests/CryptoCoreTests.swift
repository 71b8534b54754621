import Testing
@testable import CryptoCore

@Test func moduleBuilds() { #expect(Bool(true)) }
