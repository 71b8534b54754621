import CryptoCore
import Foundation
import HTTPServer
import Observability
import StorageSQLite
import Synchronization
import TestSupport
import Testing
import WebAuthnCore

/// Issue 7: the request limits of the real listener in front of the relying-party server: body size, slow
/// clients, idle connections and the connection cap, malformed HTTP, deep JSON. Each answer is JSON or a closed
/// connection, and the server keeps serving.
@Suite(.serialized) struct RequestLimitTests {
    /// A raw HTTP answer: status (0 when there is none), headers and body.
    struct RawAnswer {
        let status: Int
        let head: String
        let body: [UInt8]

        init(_ bytes: [UInt8]) {
            let separator = Array("\r\n\r\n".utf8)
            guard let end = bytes.firstRange(of: separator) else {
                status = 0
                head = String(decoding: bytes, as: UTF8.self)
                body = []
                return
            }
            head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
            body = Array(bytes[end.upperBound...])
            let parts = head.split(separator: " ", maxSplits: 2)
            status = parts.count >= 2 && parts[0].hasPrefix("HTTP/1.") ? Int(parts[1]) ?? 0 : 0
        }

        var errorCode: String? {
            ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])?["error"] as? String
        }
    }

    /// The answer is a JSON 4xx error (or 501 for a method nobody implements), or nothing at all because the
    /// server closed the connection.
    static func expectJSONClientErrorOrClose(_ bytes: [UInt8], _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains("<HTML") && !text.contains("<html"), "\(name): \(text)", sourceLocation: sourceLocation)
        guard !bytes.isEmpty else { return }
        let answer = RawAnswer(bytes)
        #expect((400..<500).contains(answer.status) || answer.status == 501, "\(name): \(text)", sourceLocation: sourceLocation)
        #expect(answer.head.lowercased().contains("content-type: application/json"), "\(name): \(text)", sourceLocation: sourceLocation)
        #expect(answer.errorCode != nil, "\(name): \(text)", sourceLocation: sourceLocation)
    }

    static func expectServing(_ server: LoopbackServer, sourceLocation: SourceLocation = #_sourceLocation) {
        let reply = try? CurlTransport(port: server.port).send("GET", "/healthz", body: nil, headers: [])
        #expect(reply?.status == 200, sourceLocation: sourceLocation)
    }

    // MARK: body size

    @Test func oversizedBodyIsJSON413AndTheServerKeepsServing() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let limit = HTTPServerConfiguration().maximumBodySize
        let body = Data(#"{"username":""#.utf8) + Data(repeating: UInt8(ascii: "a"), count: limit) + Data(#""}"#.utf8)
        let result = try ChildProcess.run(
            "/usr/bin/curl",
            [
                "-sk", "-i", "--max-time", "20", "-H", "Content-Type: application/json", "-H", "Expect:", "--data-binary", "@-",
                "https://127.0.0.1:\(server.port)/webauthn/registration/options",
            ],
            input: body
        )
        let reply = try CurlTransport.parse(Array(result.output))
        #expect(reply.status == 413)
        #expect(reply.errorCode == "request_too_large")
        #expect(reply.headers["Content-Type"] == "application/json")
        let account = try PasskeyClient(CurlTransport(port: server.port)).register("alice")
        #expect(!account.token.isEmpty)
    }

    // MARK: slow and idle clients

    /// A client that sends its request one byte at a time, pausing longer than the read timeout, is cut off at its
    /// first pause, while another client completes a whole registration meanwhile.
    @Test func slowClientIsDisconnectedWhileOthersAreServed() throws {
        let server = try LoopbackServer(plainListener: true, limits: HTTPServerConfiguration(readTimeoutSeconds: 1))
        defer { server.stop() }
        let request = Array(
            "POST /webauthn/authentication/options HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
                .utf8
        )
        let slow = try RawConnection(port: server.plainPort)
        let started = Date()
        var sent = 0
        var closed = false
        for byte in request where Date().timeIntervalSince(started) < 10 {
            guard slow.send([byte]) else {
                closed = true
                break
            }
            sent += 1
            let other = try PasskeyClient(CurlTransport(port: server.port)).register("user\(sent)")
            #expect(!other.token.isEmpty)
            if slow.isClosedByServer(within: 1.6) {
                closed = true
                break
            }
        }
        #expect(closed)
        #expect(sent < request.count)
        #expect(Date().timeIntervalSince(started) < 10)
        Self.expectServing(server)
    }

    /// Two thousand idle TCP connections do not keep a normal client from signing up (all from 127.0.0.1: beyond the
    /// per-address cap each new one takes the place of the oldest idle one, the client's own included); the read
    /// timeout reaps the rest, and the count of open connections returns to 0.
    @Test func thousandsOfIdleConnectionsAreReapedAndDoNotBlockOthers() throws {
        try DescriptorHeavyTests.oneAtATime { try reapsThousandsOfIdleConnections() }
    }

    private func reapsThousandsOfIdleConnections() throws {
        // The per-address cap (its own tests are in ConnectionFloodTests) is raised so that all 2,000 are held and it is
        // the read timeout that closes them; at 256 per address, connections still waiting in the backlog when the
        // client's own connection was accepted took its place under load (curl exit 35).
        let server = try LoopbackServer(
            plainListener: true,
            limits: HTTPServerConfiguration(readTimeoutSeconds: 2, maximumConnectionsPerAddress: 10_000)
        )
        defer { server.stop() }
        var idle: [RawConnection] = []
        for index in 0..<2000 {
            idle.append(try RawConnection(port: index.isMultiple(of: 2) ? server.port : server.plainPort))
        }
        // The client comes once the server holds them all (within 2 s, before the read timeout reaps any). A TLS
        // handshake begun while the loops were still accepting the burst was sometimes reset (curl 35,
        // SSL_ERROR_SYSCALL, about one run in five next to the flood test; never alone): an open question for the
        // HTTP layer, recorded in the closing note, and not what this test is about.
        let accepted = Date().addingTimeInterval(2)
        while server.openConnectionCount < idle.count && Date() < accepted { usleep(10_000) }
        let account = try PasskeyClient(CurlTransport(port: server.port)).register("alice")
        #expect(!account.token.isEmpty)
        let deadline = Date().addingTimeInterval(6)
        let reaped = idle.filter { $0.isClosedByServer(within: deadline.timeIntervalSinceNow) }.count
        #expect(reaped == idle.count)
        var remaining = server.openConnectionCount
        for _ in 0..<50 where remaining != 0 {
            usleep(100_000)
            remaining = server.openConnectionCount
        }
        #expect(remaining == 0)
        Self.expectServing(server)
    }

    /// With the cap at 100, connections beyond it are closed at once; the server serves again as soon as some
    /// close, and the count returns to 0 when they all have.
    @Test func connectionsBeyondTheCapAreClosedAndCountedBackToZero() throws {
        let server = try LoopbackServer(plainListener: true, limits: HTTPServerConfiguration(maximumConnections: 100))
        defer { server.stop() }
        var connections: [RawConnection] = []
        for _ in 0..<150 {
            connections.append(try RawConnection(port: server.plainPort))
        }
        let closed = connections.filter { $0.isClosedByServer(within: 0.05) }
        let stillOpen = connections.filter { connection in !closed.contains { $0 === connection } }
        // Two event loops may both see the count above the cap at the same instant and both close: at least 50.
        #expect(closed.count >= 50)
        #expect(stillOpen.count <= 100 && stillOpen.count >= 95)
        #expect(server.openConnectionCount == stillOpen.count)
        for connection in stillOpen.prefix(10) { connection.close() }
        var served: ServerReply?
        for _ in 0..<50 where served?.status != 200 {
            usleep(100_000)
            served = try? CurlTransport(port: server.port).send("GET", "/healthz", body: nil, headers: [])
        }
        #expect(served?.status == 200)
        for connection in connections { connection.close() }
        var remaining = server.openConnectionCount
        for _ in 0..<50 where remaining != 0 {
            usleep(100_000)
            remaining = server.openConnectionCount
        }
        #expect(remaining == 0)
    }

    /// A client trickling its request one byte every 0.4 s, faster than the 1 s read timeout (which restarts with
    /// every byte), is still cut off: the whole request must arrive within the read timeout.
    @Test func clientTricklingFasterThanTheReadTimeoutIsDisconnected() throws {
        let server = try LoopbackServer(plainListener: true, limits: HTTPServerConfiguration(readTimeoutSeconds: 1))
        defer { server.stop() }
        let request = Array(
            "POST /webauthn/authentication/options HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
                .utf8
        )
        // On the TLS port: the start of a 512-byte handshake record, which OpenSSL waits for in full.
        let handshake: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00] + [UInt8](repeating: 0, count: 15)
        for (port, bytes) in [(server.plainPort, request), (server.port, handshake)] {
            let slow = try RawConnection(port: port)
            let started = Date()
            let (closed, sent) = Self.trickle(bytes.prefix(20), on: slow)
            #expect(closed, "port \(port): still open after \(sent) bytes in \(Date().timeIntervalSince(started)) s")
            #expect(Date().timeIntervalSince(started) < 3)
        }
        #expect(try PasskeyClient(CurlTransport(port: server.port)).register("alice").token.isEmpty == false)
    }

    /// After an answer, the next request on the same keep-alive connection has the write and the read timeouts to
    /// arrive in full (the deadline is armed once per answer, as the answer is queued): one trickled byte every 0.4 s
    /// is cut off within about 2 s of the answer, and several answers in a row on one connection each re-arm it.
    @Test func tricklingTheNextRequestAfterAnAnswerIsDisconnected() throws {
        let server = try LoopbackServer(plainListener: true, limits: HTTPServerConfiguration(readTimeoutSeconds: 1, writeTimeoutSeconds: 1))
        defer { server.stop() }
        let connection = try RawConnection(port: server.plainPort)
        var answered = Date()
        for _ in 0..<3 {
            #expect(connection.send("GET /healthz HTTP/1.1\r\nHost: example.com\r\n\r\n"))
            let answer = String(decoding: connection.receive(within: 2, until: "\"status\":\"ok\"}"), as: UTF8.self)
            answered = Date()
            #expect(answer.hasPrefix("HTTP/1.1 200 "), "answer: \(answer)")
            // Well within the deadline: the next request comes 0.8 s after this answer (three answers take longer
            // than one deadline, so each must have re-armed it).
            Thread.sleep(forTimeInterval: 0.8)
        }
        let (closed, sent) = Self.trickle(Array("GET /healthz HTTP/1.1\r\nHost: example.com\r\n\r\n".utf8), on: connection)
        let elapsed = Date().timeIntervalSince(answered)
        #expect(closed, "still open after \(sent) bytes in \(elapsed) s")
        #expect(elapsed >= 1.5 && elapsed < 3.5, "closed \(elapsed) s after the last answer")
    }

    /// Sends `bytes` one at a time, waiting up to 0.4 s after each for the server to close; whether it closed, and how
    /// many bytes went out before.
    private static func trickle(_ bytes: some Sequence<UInt8>, on connection: RawConnection) -> (closed: Bool, sent: Int) {
        var sent = 0
        for byte in bytes {
            guard connection.send([byte]) else { return (true, sent) }
            sent += 1
            if connection.isClosedByServer(within: 0.4) { return (true, sent) }
        }
        return (false, sent)
    }

    // MARK: malformed HTTP

    static let malformedRequests: [String: [UInt8]] = [
        "garbage request line": Array("THIS IS NOT HTTP\r\n\r\n".utf8),
        "binary garbage": [0x00, 0xFF, 0xFE, 0x0D, 0x0A, 0x0D, 0x0A],
        "header without colon": Array("GET /healthz HTTP/1.1\r\nHost: example.com\r\nNoColonHere\r\n\r\n".utf8),
        "missing Host": Array("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n".utf8),
        "NUL in a header": Array("GET /healthz HTTP/1.1\r\nHost: example.com\r\nX-Note: a\u{0}b\r\nConnection: close\r\n\r\n".utf8),
        "NUL in the Host header": Array("GET /healthz HTTP/1.1\r\nHost: example.com\u{0}.evil\r\nConnection: close\r\n\r\n".utf8),
        "NUL in the path": Array("GET /heal\u{0}thz HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n".utf8),
        "huge header": Array(("GET /healthz HTTP/1.1\r\nHost: example.com\r\nX-Big: " + String(repeating: "h", count: 20_000) + "\r\n\r\n").utf8),
        "unknown method": Array("BREW /healthz HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n".utf8),
        "unknown version": Array("GET /healthz HTTP/7.3\r\nHost: example.com\r\nConnection: close\r\n\r\n".utf8),
        "negative Content-Length": Array(
            "POST /webauthn/authentication/options HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json\r\nContent-Length: -5\r\n\r\n{}"
                .utf8
        ),
        "bad chunk size": Array(
            "POST /webauthn/authentication/options HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n"
                .utf8
        ),
    ]

    @Test(arguments: malformedRequests.keys.sorted())
    func malformedHTTPIsAJSON4xxOrAClose(name: String) throws {
        let server = try LoopbackServer(plainListener: true, limits: HTTPServerConfiguration(readTimeoutSeconds: 2))
        defer { server.stop() }
        let request = try #require(Self.malformedRequests[name])
        let plain = try RawConnection(port: server.plainPort)
        plain.send(request)
        let answer = plain.receiveUntilClosed(within: 5)
        #expect(answer.closed, "\(name): the connection stayed open")
        Self.expectJSONClientErrorOrClose(answer.bytes, name + " (plain)")

        let overTLS = try ChildProcess.run(
            "/usr/bin/timeout",
            [
                "10", "/usr/bin/openssl", "s_client", "-quiet", "-ign_eof",
                "-connect", "127.0.0.1:\(server.port)",
            ],
            input: Data(request)
        )
        Self.expectJSONClientErrorOrClose(Array(overTLS.output), name + " (TLS)")
        Self.expectServing(server)
    }

    // MARK: content type and JSON

    @Test(arguments: ["/webauthn/registration/verify", "/webauthn/authentication/verify", "/webauthn/authentication/options"])
    func wrongContentTypeIs415OverHTTPS(path: String) throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let reply = try CurlTransport(port: server.port).send("POST", path, body: Array("{}".utf8), headers: [("Content-Type", "text/plain")])
        #expect(reply.status == 415)
        #expect(reply.errorCode == "unsupported_media_type")
    }

    /// 100,000 nested arrays (the body limit raised to let them through) are refused with a 400, not a crash.
    @Test(arguments: [
        "/webauthn/registration/options", "/webauthn/registration/verify", "/webauthn/authentication/options",
        "/webauthn/authentication/verify",
    ])
    func deeplyNestedJSONIs400(path: String) throws {
        let server = try LoopbackServer(limits: HTTPServerConfiguration(maximumBodySize: 262_144))
        defer { server.stop() }
        for body in [
            String(repeating: "[", count: 100_000), String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000),
            #"{"username":"# + String(repeating: "{\"a\":", count: 30_000),
        ] {
            let reply = try CurlTransport(port: server.port).send("POST", path, body: Array(body.utf8), headers: [])
            #expect(reply.status == 400, "\(path): \(reply.text)")
            #expect(reply.errorCode == "invalid_json", "\(path): \(reply.text)")
        }
        Self.expectServing(server)
    }

    // MARK: secrets in the log

    /// A full flow, with failures that the server does log, at the debug level (every request line): no line, in the
    /// text or the JSON form, names a session token, an access token (a forged one refused included), a challenge, the
    /// username, the user handle or a credential ID; every JSON line parses.
    @Test func nothingSecretOrPersonalIsLogged() throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteStore(path: folder.path + "/passkeyd.sqlite")
        let lines = Mutex([String]())
        let json = LogWriter(format: .json, node: "node-a", now: { Date() })
        let text = LogWriter(format: .text, node: "node-a", now: { Date() })
        let log = Logger(level: .debug) { record in lines.withLock { $0 += [json.render(record), text.render(record)] } }
        let server = try LoopbackServer(store: store, log: log)
        defer { server.stop() }
        let client = PasskeyClient(CurlTransport(port: server.port))
        var secrets: [String] = ["carol.secret-name"]

        let optionsReply = try client.registrationOptions(username: "carol.secret-name")
        let options = try optionsReply.decode(PublicKeyCredentialCreationOptionsJSON.self)
        secrets += [options.challenge, options.user.id]
        let (credential, response) = try client.answer(options)
        let registered = try client.registrationVerify(response)
        #expect(registered.status == 200)
        let token = try #require(registered.object["token"] as? String)
        secrets += [token, Base64URL.encode(credential.id), try #require(registered.object["accessToken"] as? String)]

        let requestOptions = try client.requestOptions(username: "carol.secret-name")
        secrets.append(requestOptions.challenge)
        let signedIn = try client.authenticationVerify(try client.assertion(credential, answering: requestOptions, .init(signCount: 5)))
        #expect(signedIn.status == 200)
        secrets.append(try #require(signedIn.object["token"] as? String))
        let accessToken = try #require(signedIn.object["accessToken"] as? String)
        secrets.append(accessToken)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(accessToken)).status == 200)
        // An access token whose signature does not verify is refused, and its refusal logged without it.
        let forged = String(accessToken.dropLast(4)) + "AAAA"
        secrets.append(forged)
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(forged)).status == 401)
        let second = try client.addPasskey(token: token)
        secrets.append(Base64URL.encode(second.id))
        #expect(try client.send("GET", "/me", headers: PasskeyClient.bearer(token)).status == 200)

        // Refusals the server logs: a counter that went backwards, a registration answered with the wrong origin.
        let cloneOptions = try client.requestOptions()
        secrets.append(cloneOptions.challenge)
        #expect(
            try client.authenticationVerify(try client.assertion(credential, answering: cloneOptions, .init(signCount: 2))).errorCode
                == "possible_clone"
        )
        let strangerOptions = try client.registrationOptions(username: "dave.secret-name").decode(PublicKeyCredentialCreationOptionsJSON.self)
        secrets += ["dave.secret-name", strangerOptions.challenge]
        let stranger = try SoftwareCredential.generate(.es256, userHandle: try PasskeyClient.bytes(strangerOptions.user.id))
        let wrongOrigin = try SoftwareAuthenticator(relyingPartyID: "example.com", origin: "https://evil.example").register(
            stranger,
            challenge: try PasskeyClient.bytes(strangerOptions.challenge)
        )
        #expect(try client.registrationVerify(wrongOrigin).status == 400)
        // And a storage failure on a path that names a passkey (5xx are logged with their route).
        store.close()
        let failed = try client.send("DELETE", "/me/passkeys/" + Base64URL.encode(second.id), headers: PasskeyClient.bearer(token))
        #expect(failed.status == 503)
        #expect(try client.send("POST", "/logout", headers: PasskeyClient.bearer(token)).status == 503)

        let logged = lines.withLock { $0 }
        #expect(logged.contains { $0.contains("refused") })
        #expect(logged.contains { $0.contains("access token refused") })
        #expect(logged.contains { $0.contains("storage_unavailable") })
        let objects = logged.filter { $0.hasPrefix("{") }.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count * 2 == logged.count, "a JSON line does not parse")
        #expect(
            objects.contains { $0["event"] as? String == "request" && $0["route"] as? String == "/me/passkeys/{id}" && $0["status"] as? Int == 503 }
        )
        for line in logged {
            for secret in secrets {
                #expect(!line.contains(secret), "the log line \"\(line)\" contains a secret or personal value")
            }
        }
    }
}
