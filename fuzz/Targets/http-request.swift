// Target `http-request`: RelyingPartyServer.handle — routing, JSON body decoding, cookie / bearer parsing, the
// Origin check, the ceremonies end to end, the account endpoints, the well-known files and the static files —
// against a fresh InMemoryStore per input. The server must answer every request, never with a 5xx, and every error
// must be the JSON {"error", "message"} the README promises; the target traps otherwise.
//
// Input: up to 6 requests separated by NUL bytes, each in HTTP/1.1 text form (what reaches the handler after
// libevent has parsed it):
//
//     METHOD /path?query\n
//     Name: value\n
//     \n
//     body bytes
//
// Lines may end in \r\n. `$TOKEN` in the head is replaced by the last session token the server issued.
//
// Every input starts from the same state, so that the W3C vectors can complete real ceremonies:
// - user `alice` (handle "alice-handle-…", 32 bytes) owning the W3C packed-es256 and packed-es384 credentials;
// - a session for alice with the token `fuzz-session-token` (Authorization: Bearer … or the passkeyd_session cookie);
// - a registration challenge for the W3C none-es256 registration vector (new account `bob`);
// - authentication challenges for alice, for the W3C packed-es256 and packed-es384 authentication vectors.
// The relying party is example.org with origin https://example.org, as in the W3C vectors.
// `POST /introspect` takes the backend key `backend` (Authorization: Bearer backend).
import ConfigurationFile
import CryptoCore
import Foundation
import HTTPFields
import HTTPServer
import RelyingPartyServer
import Storage
import Synchronization
import WebAuthnCore

/// Deterministic randomness: SHA-256 of a counter, so that a replayed input sees the same tokens and challenges.
private final class CounterRandom: RandomSource {
    private let counter = Mutex(0)

    func bytes(count: Int) -> [UInt8] {
        var output: [UInt8] = []
        while output.count < count {
            let next = counter.withLock { value in
                value += 1
                return value
            }
            output += DigestAlgorithm.sha256.hash(Array("passkeyd-fuzz-\(next)".utf8))
        }
        return Array(output.prefix(count))
    }
}

private struct Seeds: @unchecked Sendable {
    let configuration: ServerConfiguration
    let aliceID = Array("alice-handle-0123456789abcdefghi".utf8)
    let sessionToken = "fuzz-session-token"
    let credentials: [CredentialRecord]
    let challenges: [ChallengeRecord]
}

private let seeds: Seeds = {
    let www = Repository.root.appendingPathComponent("www").path
    let json = """
        {"relyingParty": {"id": "example.org", "name": "Example", "origins": ["https://example.org"]},
         "algorithms": ["ES256", "ES384", "ES512", "EdDSA", "RS256", "PS256"],
         "associatedDomains": {
           "webcredentials": {"apps": ["ABCDE12345.org.example.app"]},
           "applinks": {"details": [{"appIDs": ["ABCDE12345.org.example.app"], "components": [{"/": "/open/*"}]}]},
           "android": [{"package": "org.example.app", "sha256CertFingerprints": ["AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89"]}],
           "relatedOrigins": ["https://example.co.uk"],
           "passkeyEndpoints": {"enroll": "https://example.org/account/passkeys/new", "manage": "https://example.org/account/passkeys"}},
         "backends": [{"name": "fuzz", "keySHA256": "10e08a419e850eba1ebba18fdd28eb7ec1b7e8baa9bcc3b973e2b8891ec726be"}],
         "www": "\(www)"}
        """
    let configuration: ServerConfiguration
    do {
        configuration = try ServerConfiguration.load(json: Data(json.utf8))
    } catch {
        fuzzFailure("the fuzz configuration is refused: \(error)")
    }
    let aliceID = Array("alice-handle-0123456789abcdefghi".utf8)
    let expiry = fixedNow.addingTimeInterval(300)
    func challenge(_ id: String) -> [UInt8] {
        guard let text = Vectors.case(id)["expectedChallenge"] as? String, let bytes = Base64URL.decode(text) else {
            fuzzFailure("no challenge in \(id)")
        }
        return bytes
    }
    var credentials: [CredentialRecord] = []
    for name in ["packed-es256", "packed-es384"] {
        let vector = Vectors.case("w3c-l3/\(name)/registration")
        guard let expect = vector["expect"] as? [String: Any], let id = (expect["credentialId"] as? String).flatMap(Base64URL.decode),
            let key = (expect["credentialPublicKey"] as? String).flatMap(Base64URL.decode), let alg = expect["alg"] as? Int
        else { fuzzFailure("vector \(name) lacks expect members") }
        credentials.append(
            CredentialRecord(
                id: id,
                userID: aliceID,
                publicKey: key,
                algorithm: alg,
                signCount: 0,
                transports: ["usb"],
                aaguid: [UInt8](repeating: 7, count: 16),
                backupEligible: expect["backupEligible"] as? Bool ?? false,
                backupState: expect["backupState"] as? Bool ?? false,
                attestationFormat: "packed",
                attestationSummary: "{}",
                name: name,
                createdAt: fixedNow
            )
        )
    }
    let bobContext = #"{"userHandle":"Ym9iLWhhbmRsZS0wMTIzNDU2Nzg5YWJjZGVmZ2hpamtsbQ","username":"bob","displayName":"Bob","newAccount":true}"#
    let challenges = [
        ChallengeRecord(
            challenge: challenge("w3c-l3/none-es256/registration"),
            ceremony: .registration,
            userID: nil,
            userVerification: "preferred",
            context: Array(bobContext.utf8),
            expiresAt: expiry
        ),
        ChallengeRecord(
            challenge: challenge("w3c-l3/packed-es256/authentication"),
            ceremony: .authentication,
            userID: aliceID,
            userVerification: "preferred",
            context: [],
            expiresAt: expiry
        ),
        ChallengeRecord(
            challenge: challenge("w3c-l3/packed-es384/authentication"),
            ceremony: .authentication,
            userID: aliceID,
            userVerification: "preferred",
            context: [],
            expiresAt: expiry
        ),
    ]
    return Seeds(configuration: configuration, credentials: credentials, challenges: challenges)
}()

/// A fresh server over a store holding the seeded state.
private func makeServer() -> RelyingPartyServer {
    let store = InMemoryStore()
    do {
        try store.transaction { transaction throws(StorageError) in
            try transaction.insertUser(
                UserRecord(
                    id: seeds.aliceID,
                    name: "alice",
                    displayName: "Alice",
                    appAccountToken: UUID(uuid: (0x6F, 0x1A, 0x2B, 0x3C, 0x4D, 0x5E, 0x4F, 0x60, 0x8A, 0x7B, 0x9C, 0x0D, 0x1E, 0x2F, 0x3A, 0x4B)),
                    createdAt: fixedNow
                )
            )
            for credential in seeds.credentials { try transaction.insertCredential(credential) }
            try transaction.insertSession(
                SessionRecord(
                    tokenHash: DigestAlgorithm.sha256.hash(Array(seeds.sessionToken.utf8)),
                    id: [UInt8](repeating: 0x5E, count: SessionRecord.idLength),
                    userID: seeds.aliceID,
                    method: .passkey,
                    credentialID: seeds.credentials[0].id,
                    userVerified: true,
                    createdAt: fixedNow,
                    expiresAt: fixedNow.addingTimeInterval(3600)
                )
            )
        }
        for challenge in seeds.challenges { try store.insertChallenge(challenge) }
        return try RelyingPartyServer(
            configuration: seeds.configuration,
            store: store,
            time: FixedTime(fixedNow),
            random: CounterRandom(),
            enumerationSecret: Array("fuzz-enumeration-secret".utf8)
        )
    } catch {
        fuzzFailure("cannot seed the server: \(error)")
    }
}

/// One request in the text form described above.
private func parseRequest(_ bytes: ArraySlice<UInt8>, token: String?) -> HTTPRequest? {
    // The head ends at the first empty line (\n\n or \r\n\r\n); the rest is the body.
    var headEnd = bytes.endIndex
    var bodyStart = bytes.endIndex
    var index = bytes.startIndex
    while index < bytes.endIndex {
        if bytes[index] == 0x0A {
            var next = index + 1
            if next < bytes.endIndex, bytes[next] == 0x0D { next += 1 }
            if next < bytes.endIndex, bytes[next] == 0x0A {
                headEnd = index
                bodyStart = next + 1
                break
            }
        }
        index += 1
    }
    var head = String(decoding: bytes[bytes.startIndex..<headEnd], as: UTF8.self)
    if let token { head = head.replacingOccurrences(of: "$TOKEN", with: token) }
    // "\r\n" is one Character in Swift, so split on both forms.
    var lines = head.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        .map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
    guard !lines.isEmpty else { return nil }
    let requestLine = lines.removeFirst()
    let parts = requestLine.split(separator: " ", maxSplits: 1)
    guard parts.count == 2 else { return nil }
    var target = parts[1]
    if let space = target.lastIndex(of: " "), target[space...].hasPrefix(" HTTP/") { target = target[..<space] }
    let path: Substring
    var query: String?
    if let mark = target.firstIndex(of: "?") {
        path = target[..<mark]
        query = String(target[target.index(after: mark)...])
    } else {
        path = target
    }
    var headers = HTTPHeaders()
    for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    return HTTPRequest(
        method: String(parts[0]),
        path: path.isEmpty ? "/" : String(path),
        query: query,
        headers: headers,
        body: Array(bytes[bodyStart...])
    )
}

/// The invariants every answer must keep.
private func check(_ response: HTTPResponse, for request: HTTPRequest) {
    let label = "\(request.method) \(request.path)"
    guard (200..<500).contains(response.status) else { fuzzFailure("\(label) answered \(response.status)") }
    let isJSON = response.headers["content-type"]?.hasPrefix("application/json") == true
    let document = isJSON ? try? JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed]) : nil
    if isJSON, document == nil { fuzzFailure("\(label) sent a JSON content type with a body that is not JSON") }
    if response.status >= 400 {
        guard let object = document as? [String: Any], object["error"] is String, object["message"] is String else {
            fuzzFailure("\(label) answered \(response.status) without a JSON {error, message} body")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = bytes(data, size)
    let server = makeServer()
    var token: String?
    for chunk in input.split(separator: 0, maxSplits: 5, omittingEmptySubsequences: true) {
        guard let request = parseRequest(chunk, token: token) else { continue }
        let response = server.handle(request)
        if debugOutcomes {
            print("  \(request.method) \(request.path) → \(response.status) \(String(decoding: response.body.prefix(100), as: UTF8.self))")
        }
        check(response, for: request)
        if response.status == 200, let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let issued = object["token"] as? String
        {
            token = issued
        }
    }
    return 0
}
