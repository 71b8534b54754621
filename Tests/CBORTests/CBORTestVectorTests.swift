import CBOR
import Foundation
import Testing

/// One CBOR-bearing field of a case in the repository's `TestVectors/` corpus (real authenticator output).
struct CBORTestVector: Sendable, CustomTestStringConvertible {
    enum Kind: Sendable {
        /// A registration's attestation object; `wellFormed` when the corpus expects the ceremony to succeed.
        case attestationObject(wellFormed: Bool)
        /// A stored COSE public key from an authentication case.
        case credentialPublicKey
    }

    let id: String
    let kind: Kind
    let bytes: [UInt8]

    var testDescription: String { id }

    static let all: [CBORTestVector] = {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../TestVectors")
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return files.filter { $0.pathExtension == "json" }.sorted { $0.path < $1.path }.flatMap(vectors(in:))
    }()

    private static func vectors(in file: URL) -> [CBORTestVector] {
        guard let data = try? Data(contentsOf: file),
            let corpus = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cases = corpus["cases"] as? [[String: Any]]
        else { return [] }
        return cases.flatMap { testCase -> [CBORTestVector] in
            let id = testCase["id"] as? String ?? "?"
            let response = (testCase["response"] as? [String: Any])?["response"] as? [String: Any]
            let expectsSuccess = (testCase["expect"] as? [String: Any])?["ok"] as? Bool ?? false
            var vectors: [CBORTestVector] = []
            if let attestationObject = (response?["attestationObject"] as? String).flatMap(base64URLDecoded) {
                vectors.append(CBORTestVector(id: id, kind: .attestationObject(wellFormed: expectsSuccess), bytes: attestationObject))
            }
            if let key = (testCase["credentialPublicKey"] as? String).flatMap(base64URLDecoded) {
                vectors.append(CBORTestVector(id: id + " (credentialPublicKey)", kind: .credentialPublicKey, bytes: key))
            }
            return vectors
        }
    }

    private static func base64URLDecoded(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }
}

@Suite struct CBORTestVectorTests {
    let decoder = CBORDecoder()

    @Test func corpusIsFound() {
        #expect(CBORTestVector.all.count > 100)
    }

    @Test(arguments: CBORTestVector.all)
    func decodesRealAuthenticatorOutput(vector: CBORTestVector) throws {
        guard !vector.bytes.isEmpty else {
            #expect(errorCode(vector.bytes) == .empty)
            return
        }
        let value = try decoder.decode(vector.bytes)
        switch vector.kind {
        case .credentialPublicKey:
            try expectCOSEKey(value)
        case .attestationObject(let wellFormed):
            #expect(value["fmt"]?.textValue != nil)
            #expect(value["attStmt"]?.mapValue != nil)
            let authenticatorData = try #require(value["authData"]?.bytesValue)
            if wellFormed {
                try expectAuthenticatorData(authenticatorData)
            }
        }
    }

    /// Yubico's fixtures encode the attestation object as an indefinite-length map (`bf … ff`).
    @Test func decodesYubicoIndefiniteLengthAttestationObject() throws {
        let vector = try #require(CBORTestVector.all.first { $0.id == "java-webauthn-server/packed/self-attestation" })
        #expect(vector.bytes.first == 0xBF)
        let value = try decoder.decode(vector.bytes)
        #expect(value["fmt"] == .text("packed"))
    }

    /// WebAuthn §6.1: rpIdHash (32), flags (1), signCount (4), then attested credential data when AT is set
    /// (aaguid 16, length 2, credential ID, COSE key) and an extensions map when ED is set.
    private func expectAuthenticatorData(_ bytes: [UInt8]) throws {
        let flags = bytes[32]
        guard flags & 0x40 != 0 else { return }
        let credentialIDLength = Int(bytes[53]) << 8 | Int(bytes[54])
        let keyStart = 55 + credentialIDLength
        let (key, keyLength) = try decoder.decodeFirst(bytes[keyStart...])
        try expectCOSEKey(key)
        let rest = bytes[(keyStart + keyLength)...]
        if flags & 0x80 != 0 {
            #expect(try decoder.decode(rest).mapValue != nil)
        } else {
            #expect(rest.isEmpty)
        }
    }

    /// RFC 9052 §7: a COSE key is a map with the key type under label 1; WebAuthn adds the algorithm under label 3.
    private func expectCOSEKey(_ key: CBORValue) throws {
        #expect(key[1]?.integerValue != nil)
        #expect(key[3]?.integerValue != nil)
    }
}
