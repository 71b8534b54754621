import CBOR
import CryptoCore
import Foundation
import Testing
import WebAuthnCore
import WebAuthnVectors

/// The `android-safetynet` format (WebAuthn §8.5): each check refuses a vector changed in what it guards.
@Suite struct AndroidSafetyNetAttestationTests {
    /// A 2021 Chrome registration; the peer disabled the freshness check.
    static let chromeCase = "py_webauthn/android-safetynet-chrome"
    /// A 2025 registration with ctsProfileMatch false, evaluated at exactly its timestampMs with CTS not enforced.
    static let freshCase = "simplewebauthn/android-safetynet-cts-not-enforced"
    /// timestampMs of `freshCase`.
    static let freshTimestamp = Date(timeIntervalSince1970: 1_749_501_642.989)

    private func outcome(_ id: String, _ edit: (inout EditableVectorCase) throws -> Void) throws -> VerificationOutcome {
        var editable = try EditableVectorCase(id)
        try edit(&editable)
        return try editable.run()
    }

    /// Rewrites the three parts of the statement's compact JWS.
    private func editJWS(_ editable: inout EditableVectorCase, _ edit: (inout [String]) -> Void) throws {
        try editable.editStatementBytes("response") { bytes in
            var parts = String(decoding: bytes, as: UTF8.self).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            edit(&parts)
            bytes = Array(parts.joined(separator: ".").utf8)
        }
    }

    private func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    @Test(arguments: [chromeCase, freshCase, "java-webauthn-server/android-safetynet/real-example"])
    func unmodifiedVectorsVerify(id: String) throws {
        let result = try outcome(id) { _ in }
        #expect(result.ok, "\(result.error ?? "") \(result.reason ?? "")")
        #expect(result.fmt == "android-safetynet")
        #expect(result.attestationType == "basic")
    }

    @Test func statementSyntaxIsChecked() throws {
        #expect(try outcome(Self.chromeCase) { try $0.setStatementMember("ver", to: .text("")) }.errorCode == .malformedStatement)
        #expect(try outcome(Self.chromeCase) { try $0.setStatementMember("ver", to: nil) }.errorCode == .malformedStatement)
        #expect(try outcome(Self.chromeCase) { try $0.setStatementMember("response", to: .text("a.b.c")) }.errorCode == .malformedStatement)
        #expect(try outcome(Self.chromeCase) { try $0.setStatementMember("sig", to: .bytes([])) }.errorCode == .malformedStatement)
    }

    @Test func responseMustBeACompactJWSWithACertificateChain() throws {
        let twoParts = try outcome(Self.chromeCase) { try editJWS(&$0) { parts in parts.removeLast() } }
        #expect(twoParts.errorCode == .safetyNetMalformedResponse)
        let headerWithoutChain = try outcome(Self.chromeCase) {
            try editJWS(&$0) { parts in parts[0] = Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8)) }
        }
        #expect(headerWithoutChain.errorCode == .safetyNetMalformedResponse)
        let emptyChain = try outcome(Self.chromeCase) {
            try editJWS(&$0) { parts in parts[0] = Base64URL.encode(Array(#"{"alg":"RS256","x5c":[]}"#.utf8)) }
        }
        #expect(emptyChain.errorCode == .safetyNetMalformedResponse)
    }

    @Test func jwsSignatureMustVerify() throws {
        let flipped = try outcome(Self.chromeCase) {
            try editJWS(&$0) { parts in
                parts[2] = (parts[2].first == "A" ? "B" : "A") + parts[2].dropFirst()
            }
        }
        #expect(flipped.errorCode == .attestationInvalidSignature)
        let payloadChanged = try outcome(Self.chromeCase) {
            try editJWS(&$0) { parts in
                let payload = String(decoding: Base64URL.decodeLenient(parts[1]) ?? [], as: UTF8.self)
                parts[1] = Base64URL.encode(Array(payload.replacingOccurrences(of: "com.google.android.gms", with: "com.example.attacker").utf8))
            }
        }
        #expect(payloadChanged.errorCode == .attestationInvalidSignature)
    }

    @Test func unknownJWSAlgorithmIsRefused() throws {
        let result = try outcome(Self.chromeCase) {
            try editJWS(&$0) { parts in
                let header = String(decoding: Base64URL.decodeLenient(parts[0]) ?? [], as: UTF8.self)
                parts[0] = Base64URL.encode(Array(header.replacingOccurrences(of: "RS256", with: "HS256").utf8))
            }
        }
        #expect(result.errorCode == .attestationInvalidSignature)
    }

    @Test func signingCertificateMustBeIssuedToAttestAndroidCom() throws {
        #expect(
            try EditableVectorCase("java-webauthn-server/android-safetynet/wrong-hostname").run().errorCode == .safetyNetHostnameMismatch
        )
    }

    @Test(arguments: [chromeCase, freshCase])
    func nonceMustHashAuthenticatorDataAndClientData(id: String) throws {
        #expect(try outcome(id) { try $0.changeClientDataHash() }.errorCode == .safetyNetNonceMismatch)
    }

    @Test func ctsProfileMatchIsRequiredWhenEnforced() throws {
        #expect(try EditableVectorCase("simplewebauthn/android-safetynet-cts-fail-enforced").run().errorCode == .safetyNetCTSProfileMismatch)
        #expect(try outcome(Self.freshCase) { $0.set("safetyNetEnforceCTS", to: true) }.errorCode == .safetyNetCTSProfileMismatch)
        #expect(try outcome(Self.freshCase) { $0.set("safetyNetEnforceCTS", to: nil) }.errorCode == .safetyNetCTSProfileMismatch)
    }

    @Test(arguments: [-61.0, 61.0])
    func timestampOutsideTheWindowIsRefused(offset: Double) throws {
        let result = try outcome(Self.freshCase) { $0.set("verifyAt", to: iso8601(Self.freshTimestamp.addingTimeInterval(offset))) }
        #expect(result.errorCode == .safetyNetTimestampOutOfRange)
    }

    @Test(arguments: [-59.0, 59.0])
    func timestampInsideTheWindowIsAccepted(offset: Double) throws {
        let result = try outcome(Self.freshCase) { $0.set("verifyAt", to: iso8601(Self.freshTimestamp.addingTimeInterval(offset))) }
        #expect(result.ok, "\(result.error ?? "") \(result.reason ?? "")")
    }

    @Test func staleResponsesAreRefusedUnlessTheCheckIsOff() throws {
        #expect(
            try EditableVectorCase("simplewebauthn/android-safetynet-2019-stale-timestamp").run().errorCode == .safetyNetTimestampOutOfRange
        )
        #expect(try EditableVectorCase("webauthn-rs/android-safetynet-not-supported").run().errorCode == .safetyNetTimestampOutOfRange)
        #expect(try outcome(Self.chromeCase) { $0.set("ignoreSafetyNetTimestamp", to: nil) }.errorCode == .safetyNetTimestampOutOfRange)
    }

    @Test func chainMustReachTheTrustAnchor() throws {
        let result = try outcome(Self.chromeCase) { $0.set("trustAnchors", to: [TPMTestCertificates.pem(TPMTestCertificates.valid)]) }
        #expect(result.errorCode == .certificateChainUntrusted)
    }
}
