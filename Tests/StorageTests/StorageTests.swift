import Testing
@testable import Storage

@Test func moduleBuilds() { #expect(Bool(true)) }
