import Testing
@testable import CBOR

@Test func moduleBuilds() { #expect(Bool(true)) }
