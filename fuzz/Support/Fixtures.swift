// Shared by every fuzz target: finding the repository, reading TestVectors/*.json once, and turning a vector's
// registration case into a ready-to-run ceremony whose attestation object (or attStmt) the fuzzer replaces.
import CBOR
import CryptoCore
import Foundation
import WebAuthnCore

/// A failed invariant: crash loudly so that libFuzzer saves the input (and the replay runner stops).
func fuzzFailure(_ message: String) -> Never {
    fatalError("FUZZ INVARIANT VIOLATED: \(message)")
}

enum Repository {
    /// The checkout holding this binary (found by walking up from the executable to `Package.swift` +
    /// `TestVectors/`), or the current folder. `PASSKEYD_ROOT` overrides.
    static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["PASSKEYD_ROOT"] { return URL(fileURLWithPath: override) }
        let candidates = [
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent(),
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        ]
        for start in candidates {
            var folder = start
            for _ in 0..<8 {
                let vectors = folder.appendingPathComponent("TestVectors").path
                if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path),
                    FileManager.default.fileExists(atPath: vectors)
                {
                    return folder
                }
                folder = folder.deletingLastPathComponent()
            }
        }
        fuzzFailure("cannot find the repository (TestVectors/); set PASSKEYD_ROOT")
    }()
}

/// The vector files, read once.
enum Vectors {
    nonisolated(unsafe) static let files: [(name: String, json: [String: Any])] = {
        let folder = Repository.root.appendingPathComponent("TestVectors")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return names.compactMap { name in
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return (name, json)
        }
    }()

    /// Every case of every file.
    nonisolated(unsafe) static let cases: [[String: Any]] = files.flatMap { ($0.json["cases"] as? [[String: Any]]) ?? [] }

    static func `case`(_ id: String) -> [String: Any] {
        guard let found = cases.first(where: { $0["id"] as? String == id }) else { fuzzFailure("no vector case \(id)") }
        return found
    }

    /// The W3C test vectors' attestation root (§sctn-test-vectors-attestation-root-cert).
    static var w3cRoot: [X509Certificate] {
        guard let pem = files.first(where: { $0.name == "w3c-webauthn-l3.json" })?.json["attestationRootCertificate"] as? String,
            let certificates = try? X509Certificate.certificates(pem: pem)
        else { fuzzFailure("no W3C attestation root") }
        return certificates
    }
}

/// `FUZZ_DEBUG=1` prints each ceremony's outcome (to check that seeds get as far as they should).
let debugOutcomes = ProcessInfo.processInfo.environment["FUZZ_DEBUG"] != nil

/// A fixed "now" for vectors without `verifyAt`, so runs are reproducible.
let fixedNow = ISO8601Time.parse("2026-06-01T00:00:00Z")!

/// One registration vector made ready to verify many attestation objects against its client data and settings,
/// with the strict defaults of `VerificationCaseRunner`.
struct RegistrationFixture: @unchecked Sendable {
    let id: String
    let ceremony: RegistrationCeremony
    let expectations: RegistrationExpectations
    let response: RegistrationResponseJSON
    /// The vector's own attestation object and its three members.
    let attestationObject: [UInt8]
    let format: String
    let statement: CBORValue
    let authenticatorData: [UInt8]

    init(_ id: String, trustAnchors override: [X509Certificate]? = nil) {
        let vector = Vectors.case(id)
        self.id = id
        guard let rpID = vector["rpId"] as? String, let origins = vector["origins"] as? [String],
            let challengeText = vector["expectedChallenge"] as? String, let challenge = Base64URL.decode(challengeText),
            let outer = vector["response"] as? [String: Any], let inner = outer["response"] as? [String: Any],
            let credentialID = outer["id"] as? String, let rawID = outer["rawId"] as? String,
            let clientData = inner["clientDataJSON"] as? String, let attestationText = inner["attestationObject"] as? String,
            let attestation = Base64URL.decode(attestationText)
        else { fuzzFailure("vector \(id) is not a registration case") }
        let time = (vector["verifyAt"] as? String).flatMap(ISO8601Time.parse) ?? fixedNow
        let relyingParty = RelyingParty(
            id: rpID,
            name: rpID,
            origins: origins,
            additionalIDs: ((vector["acceptedRpIds"] as? [String]) ?? []).filter { $0 != rpID },
            allowsCrossOriginEmbedding: vector["allowCrossOrigin"] as? Bool ?? false,
            topOrigins: vector["topOrigins"] as? [String] ?? [],
            time: FixedTime(time)
        )
        ceremony = RegistrationCeremony(relyingParty: relyingParty)
        let anchors = override ?? ((vector["trustAnchors"] as? [String]) ?? []).flatMap { (try? X509Certificate.certificates(pem: $0)) ?? [] }
        let algorithms = (vector["allowedAlgorithms"] as? [Int]).map { $0.compactMap(COSEAlgorithm.init(rawValue:)) } ?? COSEAlgorithm.verifiable
        expectations = RegistrationExpectations(
            challenge: challenge,
            userVerification: vector["requireUserVerification"] as? Bool == true ? .required : .preferred,
            requiresUserPresence: vector["requireUserPresence"] as? Bool ?? true,
            allowedAlgorithms: algorithms,
            trustAnchors: anchors,
            clientDataTypes: vector["expectedType"] as? [String] ?? ["webauthn.create"],
            safetyNet: SafetyNetPolicy(
                requiresCTSProfileMatch: vector["safetyNetEnforceCTS"] as? Bool ?? true,
                maximumTimestampSkew: vector["ignoreSafetyNetTimestamp"] as? Bool == true ? nil : 60
            )
        )
        response = RegistrationResponseJSON(
            id: credentialID,
            rawId: rawID,
            response: AuthenticatorAttestationResponseJSON(clientDataJSON: clientData, attestationObject: attestationText)
        )
        attestationObject = attestation
        guard let decoded = try? CBORDecoder().decode(attestation), let format = decoded["fmt"]?.textValue,
            let statement = decoded["attStmt"], let authenticatorData = decoded["authData"]?.bytesValue
        else { fuzzFailure("vector \(id) has no decodable attestation object") }
        self.format = format
        self.statement = statement
        self.authenticatorData = authenticatorData
    }

    /// Runs the registration ceremony on `attestationObject`; the error code, or nil when it verified.
    @discardableResult
    func verify(attestationObject bytes: [UInt8]) -> String? {
        var credential = response
        credential.response.attestationObject = Base64URL.encode(bytes)
        do {
            let result = try ceremony.verify(credential, expecting: expectations)
            checkTrust(result, expectations)
            if debugOutcomes { print("  \(id): verified") }
            return nil
        } catch {
            if debugOutcomes { print("  \(id): \(error.code)") }
            return error.code.rawValue
        }
    }

    /// The vector's attestation object with `fmt` set to `format` and the raw CBOR `statement` bytes as attStmt
    /// (spliced in unparsed, so that the fuzzer's bytes reach the decoder exactly as given).
    func attestationObject(format: String? = nil, rawStatement: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [0xA3]
        bytes += CBOREncoder.encode(.text("fmt")) + CBOREncoder.encode(.text(format ?? self.format))
        bytes += CBOREncoder.encode(.text("attStmt")) + rawStatement
        bytes += CBOREncoder.encode(.text("authData")) + CBOREncoder.encode(.bytes(authenticatorData))
        return bytes
    }
}

/// README: "When trust anchors are configured for a ceremony the attestation certificate path must end at one of
/// them or registration fails"; without anchors a path is never reported as trusted.
func checkTrust(_ result: RegistrationResult, _ expectations: RegistrationExpectations) {
    let attestation = result.attestation
    switch attestation.trustEvaluation {
    case .trusted:
        if expectations.trustAnchors.isEmpty || attestation.trustPath.isEmpty { fuzzFailure("a path was trusted without anchors or certificates") }
    case .notEvaluated:
        if !expectations.trustAnchors.isEmpty {
            fuzzFailure("\(attestation.format.rawValue): anchors were configured but the path was not evaluated")
        }
        if attestation.trustPath.isEmpty { fuzzFailure("an empty path was reported as not evaluated") }
    case .notApplicable:
        if !attestation.trustPath.isEmpty { fuzzFailure("\(attestation.format.rawValue): certificates were sent but their path was not applicable") }
    }
}

/// The fixtures of one attestation format: every registration vector of that `fmt` that verifies (the first input
/// byte picks one), for the per-format targets.
func formatFixtures(_ format: String, preferred: [String]) -> [RegistrationFixture] {
    var ids = preferred
    for vector in Vectors.cases where vector["ceremony"] as? String == "registration" {
        guard let id = vector["id"] as? String, !ids.contains(id),
            let expect = vector["expect"] as? [String: Any], expect["ok"] as? Bool == true, expect["fmt"] as? String == format
        else { continue }
        ids.append(id)
    }
    return ids.map { RegistrationFixture($0) }
}

/// libFuzzer's input as an array.
@inline(__always)
func bytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
    Array(UnsafeBufferPointer(start: data, count: size))
}

/// The per-format targets: the first byte picks one of `fixtures`, the rest is the CBOR attStmt spliced into that
/// vector's attestation object (with `fmt` replaced by `format` when given), which then goes through the whole
/// registration ceremony. A vector's own statement must still verify when given back unchanged.
func runStatement(_ fixtures: [RegistrationFixture], format: String? = nil, _ data: UnsafePointer<UInt8>, _ size: Int) {
    guard size > 0, !fixtures.isEmpty else { return }
    let input = bytes(data, size)
    let fixture = fixtures[Int(input[0]) % fixtures.count]
    fixture.verify(attestationObject: fixture.attestationObject(format: format, rawStatement: Array(input.dropFirst())))
}
