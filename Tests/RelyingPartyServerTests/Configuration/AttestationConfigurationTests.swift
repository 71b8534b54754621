import ConfigurationFile
import ConfigurationReading
import CryptoCore
import Foundation
import HTTPFields
import HTTPServer
import RelyingPartyServer
import Storage
import TestSupport
import Testing
import WebAuthnCore

/// The `attestation` configuration key and its effect on registration: policy, trust anchors, FIDO metadata, names.
@Suite("Attestation configuration")
struct AttestationConfigurationTests {
    static let now = Date(timeIntervalSince1970: 1_780_000_000)
    static let description = "Passkeyd Test Key"

    /// A fresh folder under the temporary directory.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("passkeyd-attestation-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func pem(_ certificate: X509Certificate) -> String {
        let body = Data(certificate.der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }

    static func configuration(_ attestation: String) throws(ConfigurationError) -> ServerConfiguration {
        try ServerConfiguration.load(
            json: Data(
                """
                {"relyingParty": {"id": "example.com", "origins": ["https://example.com"]}, "www": null, "attestation": \(attestation)}
                """.utf8
            )
        )
    }

    static func failingKey(_ attestation: String) -> String? {
        do {
            _ = try configuration(attestation)
            return nil
        } catch {
            return error.key
        }
    }

    @Test func stringAndObjectFormsLoad() throws {
        let directory = try Self.folder()
        let certificates = try AttestationCertificates.make(at: Self.now)
        try Self.pem(certificates.root).write(to: directory.appendingPathComponent("vendor-root.pem"), atomically: true, encoding: .utf8)
        #expect(try Self.configuration(#""none""#).attestation.policy == .none)
        #expect(try Self.configuration(#""verified""#).attestation.policy == .verified)
        let loaded = try Self.configuration(#"{"policy": "verified", "trustAnchors": "\#(directory.path)"}"#).attestation
        #expect(loaded.policy == .verified)
        #expect(loaded.trustAnchors.map(\.der) == [certificates.root.der])
        let allowList = try Self.configuration(#"{"policy": "allowList", "allowedAAGUIDs": ["7A1B2C3D-4E5F-4081-92A3-B4C5D6E7F809"]}"#).attestation
        #expect(allowList.policy == .allowList(["7a1b2c3d-4e5f-4081-92a3-b4c5d6e7f809"]))
        let shippedNames = Self.repository.appendingPathComponent("TrustAnchors/aaguid-names.json").path
        #expect(
            try Self.configuration(#"{"authenticatorNames": "\#(shippedNames)"}"#).attestation.authenticatorNames.count > 0,
            "the shipped name list is read when configured"
        )
        #expect(
            try ServerConfiguration.load(json: Data("{}".utf8)).attestation.authenticatorNames.count == 0,
            "no name list is read unless configured (never from the working directory)"
        )
    }

    /// The checkout, from this file's path.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Parsing reads no file: the trust material is read by `load`, which names the key of a file it cannot use.
    @Test func parsingReadsNoFiles() throws {
        let json = #"{"attestation": {"trustAnchors": "/nonexistent/roots", "metadata": {"file": "/nonexistent/blob.jwt", "root": "/nonexistent"}}}"#
        let parsed = try ServerConfiguration(json: Data(json.utf8))
        #expect(parsed.attestation.sources.trustAnchors == TrustMaterial.Source("/nonexistent/roots", key: "attestation.trustAnchors"))
        #expect(parsed.attestation.sources.metadata?.blob.path == "/nonexistent/blob.jwt")
        #expect(parsed.attestation.trustAnchors.isEmpty)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(json: Data(json.utf8)) }
    }

    @Test func badValuesNameTheKey() throws {
        #expect(Self.failingKey(#""strict""#) == "attestation")
        #expect(Self.failingKey("true") == "attestation")
        #expect(Self.failingKey(#"{"policy": "trusted"}"#) == "attestation.policy")
        #expect(Self.failingKey(#"{"polcy": "verified"}"#) == "attestation.polcy")
        #expect(Self.failingKey(#"{"policy": "verified", "trustAnchors": "/nonexistent/passkeyd"}"#) == "attestation.trustAnchors")
        #expect(Self.failingKey(#"{"policy": "allowList"}"#) == "attestation.allowedAAGUIDs")
        #expect(Self.failingKey(#"{"policy": "allowList", "allowedAAGUIDs": ["yubikey"]}"#) == "attestation.allowedAAGUIDs")
        #expect(
            Self.failingKey(#"{"policy": "verified", "allowedAAGUIDs": ["7a1b2c3d-4e5f-4081-92a3-b4c5d6e7f809"]}"#) == "attestation.allowedAAGUIDs"
        )
        #expect(Self.failingKey(#"{"metadata": {"url": "http://mds3.fidoalliance.org/"}}"#) == "attestation.metadata.url", "plain HTTP off loopback")
        #expect(Self.failingKey(#"{"metadata": {"root": "/nonexistent"}}"#) == "attestation.metadata.file")
        #expect(Self.failingKey(#"{"metadata": {"file": "/nonexistent/blob.jwt", "root": "/nonexistent"}}"#) == "attestation.metadata.file")
        #expect(Self.failingKey(#"{"metadata": {"file": "/nonexistent/blob.jwt"}}"#) == "attestation.metadata.root", "the BLOB's root has no default")
        #expect(Self.failingKey(#"{"authenticatorNames": "/nonexistent/names.json"}"#) == "attestation.authenticatorNames")
    }

    @Test func blobThatDoesNotVerifyStopsStartUp() throws {
        let directory = try Self.folder()
        let signer = try MetadataBLOBSigner.make(at: Self.now)
        let other = try MetadataBLOBSigner.make(at: Self.now)
        let blob = try signer.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: "2026-07-01", entries: []))
        try blob.write(to: directory.appendingPathComponent("blob.jwt"), atomically: true, encoding: .utf8)
        try Self.pem(other.root).write(to: directory.appendingPathComponent("root.pem"), atomically: true, encoding: .utf8)
        let configuration = try Self.configuration(
            #"{"metadata": {"file": "\#(directory.path)/blob.jwt", "root": "\#(directory.path)/root.pem"}}"#
        )
        do {
            _ = try RelyingPartyServer(configuration: configuration, store: InMemoryStore(), time: FixedTime(Self.now), enumerationSecret: [1, 2, 3])
            Issue.record("a BLOB signed under another root was accepted")
        } catch {
            #expect(error.key == "attestation.metadata.file")
            #expect(error.reason.hasPrefix("metadata.untrustedChain"))
        }
    }

    /// A server whose policy is `policy`, with a metadata BLOB listing `certificates.root` for the test AAGUID.
    static func server(policy: String, certificates: AttestationCertificates) throws -> RelyingPartyServer {
        let directory = try folder()
        let signer = try MetadataBLOBSigner.make(at: now)
        let entry = MetadataBLOBSigner.entry(
            aaguid: AttestedCredentialData.uuidString(RegistrationOptions.testAAGUID),
            description: description,
            roots: [certificates.root]
        )
        let blob = try signer.sign(payload: try MetadataBLOBSigner.payload(nextUpdate: "2026-07-01", entries: [entry]))
        try blob.write(to: directory.appendingPathComponent("blob.jwt"), atomically: true, encoding: .utf8)
        try pem(signer.root).write(to: directory.appendingPathComponent("mds-root.pem"), atomically: true, encoding: .utf8)
        let configuration = try Self.configuration(
            #"{"policy": "\#(policy)", "metadata": {"file": "\#(directory.path)/blob.jwt", "root": "\#(directory.path)/mds-root.pem"}}"#
        )
        return try RelyingPartyServer(configuration: configuration, store: InMemoryStore(), time: FixedTime(now), enumerationSecret: [1, 2, 3])
    }

    static func post(_ server: RelyingPartyServer, _ path: String, _ body: [UInt8], token: String? = nil) -> (status: Int, json: [String: Any]) {
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Origin", "https://example.com")])
        if let token { headers.add("Authorization", "Bearer \(token)") }
        let response = server.handle(HTTPRequest(method: "POST", path: path, headers: headers, body: body))
        return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:])
    }

    /// Registers a new account with a credential attested as `attestation`; the verify response.
    static func register(
        _ server: RelyingPartyServer,
        attestation: AttestationKind
    ) throws -> (status: Int, json: [String: Any], options: [String: Any]) {
        let options = post(server, "/webauthn/registration/options", Array(#"{"username": "alice"}"#.utf8))
        let challengeText = try #require(options.json["challenge"] as? String)
        let challenge = try #require(Base64URL.decode(challengeText))
        let response = try SoftwareAuthenticator(relyingPartyID: "example.com", origin: "https://example.com").register(
            try SoftwareCredential.generate(.es256),
            challenge: challenge,
            options: RegistrationOptions(attestation: attestation)
        )
        let verified = post(server, "/webauthn/registration/verify", Array(try JSONEncoder().encode(response)))
        return (verified.status, verified.json, options.json)
    }

    @Test func verifiedPolicyRegistersAttestedKeysAndNamesThem() throws {
        let certificates = try AttestationCertificates.make(at: Self.now, aaguid: RegistrationOptions.testAAGUID)
        let server = try Self.server(policy: "verified", certificates: certificates)
        let registered = try Self.register(server, attestation: .packed(certificates))
        #expect(registered.options["attestation"] as? String == "direct")
        #expect(registered.status == 200)
        let token = try #require(registered.json["token"] as? String)
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer \(token)")
        let me = server.handle(HTTPRequest(method: "GET", path: "/me", headers: headers))
        let account = try #require(try JSONSerialization.jsonObject(with: Data(me.body)) as? [String: Any])
        let passkey = try #require((account["passkeys"] as? [[String: Any]])?.first)
        #expect(passkey["name"] as? String == Self.description)
        #expect(passkey["authenticatorName"] as? String == Self.description)
    }

    @Test func verifiedPolicyRefusesSelfAttestation() throws {
        let certificates = try AttestationCertificates.make(at: Self.now, aaguid: RegistrationOptions.testAAGUID)
        let server = try Self.server(policy: "verified", certificates: certificates)
        let refused = try Self.register(server, attestation: .packedSelf)
        #expect(refused.status == 400)
        #expect(refused.json["step"] as? String == "attestation.notTrusted")
    }

    @Test func nonePolicyKeepsAskingForNoAttestation() throws {
        let certificates = try AttestationCertificates.make(at: Self.now, aaguid: RegistrationOptions.testAAGUID)
        let server = try Self.server(policy: "none", certificates: certificates)
        let registered = try Self.register(server, attestation: .none)
        #expect(registered.options["attestation"] as? String == "none")
        #expect(registered.status == 200)
    }
}
