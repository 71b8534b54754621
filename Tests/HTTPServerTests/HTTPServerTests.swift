import Testing
@testable import HTTPServer

@Test func moduleBuilds() { #expect(Bool(true)) }
