import CBOR
import CryptoCore
import Foundation
import TestSupport
import WebAuthnCore
import WebAuthnVectors

/// One case of TestVectors/ held as editable JSON, for tests that change a single input of a passing vector and
/// check which verification step refuses it.
struct EditableVectorCase {
    struct Missing: Error {
        let what: String
    }

    private var json: [String: Any]

    /// The case with this id, from whichever vector file holds it.
    init(_ id: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: TestVectorFile.directory.path) where name.hasSuffix(".json") {
            let data = try Data(contentsOf: TestVectorFile.directory.appendingPathComponent(name))
            let file = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let cases = file?["cases"] as? [[String: Any]] ?? []
            if let found = cases.first(where: { $0["id"] as? String == id }) {
                json = found
                return
            }
        }
        throw Missing(what: "vector case \(id)")
    }

    /// A top-level member of the case (verifyAt, trustAnchors, ignoreSafetyNetTimestamp, ...); nil removes it.
    mutating func set(_ member: String, to value: Any?) {
        json[member] = value
    }

    /// A member of `response.response` (clientDataJSON, attestationObject), as bytes.
    func responseBytes(_ member: String) throws -> [UInt8] {
        let response = (json["response"] as? [String: Any])?["response"] as? [String: Any]
        guard let text = response?[member] as? String, let bytes = Base64URL.decode(text) else { throw Missing(what: member) }
        return bytes
    }

    /// Replaces a member of `response.response` with base64url of `bytes`.
    mutating func setResponseBytes(_ member: String, to bytes: [UInt8]) {
        var outer = json["response"] as? [String: Any] ?? [:]
        var inner = outer["response"] as? [String: Any] ?? [:]
        inner[member] = Base64URL.encode(bytes)
        outer["response"] = inner
        json["response"] = outer
    }

    /// The decoded attestation object.
    func attestationObject() throws -> CBORValue {
        try CBORDecoder().decode(try responseBytes("attestationObject"))
    }

    /// The attestation statement.
    func statement() throws -> CBORValue {
        guard let statement = try attestationObject()["attStmt"] else { throw Missing(what: "attStmt") }
        return statement
    }

    /// Re-encodes the attestation object with one member replaced (or removed, for nil).
    mutating func setAttestationObjectMember(_ key: String, to value: CBORValue?) throws {
        let edited = try attestationObject().setting(key, to: value)
        setResponseBytes("attestationObject", to: CBOREncoder.encode(edited))
    }

    /// Re-encodes the attestation object with its statement transformed.
    mutating func editStatement(_ transform: (CBORValue) throws -> CBORValue) throws {
        try setAttestationObjectMember("attStmt", to: try transform(try statement()))
    }

    /// Replaces one statement member (nil removes it).
    mutating func setStatementMember(_ key: String, to value: CBORValue?) throws {
        try editStatement { $0.setting(key, to: value) }
    }

    /// Edits the bytes of one byte-string statement member.
    mutating func editStatementBytes(_ key: String, _ edit: (inout [UInt8]) -> Void) throws {
        guard var bytes = try statement()[key]?.bytesValue else { throw Missing(what: key) }
        edit(&bytes)
        try setStatementMember(key, to: .bytes(bytes))
    }

    /// Adds whitespace inside clientDataJSON: still the same JSON, but a different clientDataHash.
    mutating func changeClientDataHash() throws {
        let clientData = try responseBytes("clientDataJSON")
        setResponseBytes("clientDataJSON", to: [clientData[0], 0x20] + clientData.dropFirst())
    }

    /// Runs the case through the public ceremony API.
    func run() throws -> VerificationOutcome {
        let data = try JSONSerialization.data(withJSONObject: json)
        return VerificationCaseRunner().run(try JSONDecoder().decode(VerificationCase.self, from: data))
    }
}

extension CBORValue {
    /// This map with the member under a text key replaced, appended, or (for nil) removed.
    func setting(_ key: String, to value: CBORValue?) -> CBORValue {
        var entries = mapValue ?? []
        let index = entries.firstIndex { $0.key.textValue == key }
        switch (index, value) {
        case (let index?, let value?): entries[index].value = value
        case (let index?, nil): entries.remove(at: index)
        case (nil, let value?): entries.append(CBORMapEntry(key: .text(key), value: value))
        case (nil, nil): break
        }
        return .map(entries)
    }
}
