import Testing
@testable import WebAuthnCore

@Test func moduleBuilds() { #expect(Bool(true)) }
