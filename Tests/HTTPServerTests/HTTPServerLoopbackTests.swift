import CryptoCore
import Foundation
import TestSupport
import Testing

@testable import HTTPServer

/// Real loopback tests: a server on 127.0.0.1 driven by curl, openssl s_client and raw sockets.
@Suite(.serialized) struct HTTPServerLoopbackTests {
    @Test func getAndPostOverHTTPS() throws {
        let server = try TestServer()
        let get = try curl(["-D", "-", server.httpsURL + "/webauthn/a%20b?x=1&y=2"])
        #expect(get.status == 0)
        #expect(get.output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(get.output.lowercased().contains("content-length: "))
        #expect(get.output.lowercased().contains("date: "))
        #expect(get.output.lowercased().contains("content-type: application/json"))
        #expect(get.output.contains(#""method":"GET""#))
        #expect(get.output.contains(#""path":"\/webauthn\/a b""#))
        #expect(get.output.contains(#""query":"x=1&y=2""#))
        #expect(get.output.contains(#""secure":true"#))
        #expect(get.output.contains(#""remote":"127.0.0.1""#))

        let post = try curl(["-H", "Content-Type: application/json", "--data-binary", #"{"a":1}"#, server.httpsURL + "/post"])
        #expect(post.status == 0)
        #expect(post.output.contains(#""method":"POST""#))
        #expect(post.output.contains(#""bodyLength":7"#))
        #expect(post.output.contains(#""contentType":"application\/json""#))
    }

    /// RFC 6797: every HTTPS answer carries Strict-Transport-Security (libevent's own error pages replaced by JSON
    /// too); a plain-HTTP answer never does (§7.2: a host must not send it over plain HTTP).
    @Test func strictTransportSecurityOnHTTPSOnly() throws {
        let server = try TestServer()
        let answer = try curl(["-D", "-", "-o", "/dev/null", server.httpsURL + "/hsts"])
        #expect(answer.output.contains("Strict-Transport-Security: max-age=31536000\r\n"))
        let big = String(repeating: "h", count: TestServer.maximumHeaderSize + 100)
        let refused = try curl(["-D", "-", "-H", "X-Big: " + big, server.httpsURL + "/hsts"])
        #expect(refused.output.hasPrefix("HTTP/1.1 400 "))
        #expect(refused.output.contains("Strict-Transport-Security: max-age=31536000\r\n"))
        let plain = try curl(["-D", "-", "-o", "/dev/null", server.httpURL + "/hsts"])
        #expect(plain.output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(!plain.output.lowercased().contains("strict-transport-security"))
    }

    @Test func keepAliveReusesTheConnection() throws {
        let server = try TestServer()
        let result = try curl(["-o", "/dev/null", "-o", "/dev/null", "-w", "%{num_connects}\n", server.httpsURL + "/one", server.httpsURL + "/two"])
        #expect(result.status == 0)
        #expect(result.output == "1\n0\n")
    }

    /// Each answer is written in the loop turn that queued it (`pk_bufferevent_write_now`), not after a poll for
    /// writability: the shim finds libevent's write event for every answer, over TLS and plain HTTP, kept alive.
    @Test(arguments: [true, false])
    func everyAnswerIsWrittenInTheTurnThatQueuedIt(secure: Bool) throws {
        let server = try TestServer()
        let base = secure ? server.httpsURL : server.httpURL
        let urls = ["/one", "/two", "/" + String(repeating: "x", count: 1500)].map { base + $0 }
        let result = try curl(["-w", "%{num_connects}\n"] + urls)
        #expect(result.status == 0)
        #expect(result.output.contains(#""path":"\/one""#) && result.output.contains(#""path":"\/two""#))
        // One connection for the three (curl's count of new connections follows each body).
        #expect(result.output.components(separatedBy: "}1\n").count == 2 && result.output.components(separatedBy: "}0\n").count == 3)
        #expect(server.server.answersWrittenAtOnce == 3)
    }

    @Test func plainListenerServesHTTP() throws {
        let server = try TestServer()
        let result = try curl([server.httpURL + "/plain"])
        #expect(result.status == 0)
        #expect(result.output.contains(#""secure":false"#))
        #expect(result.output.contains(#""path":"\/plain""#))
    }

    @Test func headIsAnsweredLikeGetWithoutBody() throws {
        let server = try TestServer()
        let get = try curl(["-o", "/dev/null", "-w", "%{size_download}", server.httpsURL + "/same"])
        let head = try curl(["-I", server.httpsURL + "/same"])
        #expect(head.status == 0)
        #expect(head.output.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(head.output.contains("Content-Length: \(get.output)\r\n"))
        #expect(head.output.hasSuffix("\r\n\r\n"))
    }

    @Test(arguments: [false, true]) func oversizedBodyWithContentLengthGetsJSON413(expectContinue: Bool) throws {
        let server = try TestServer()
        let file = makeBodyFile(count: TestServer.maximumBodySize + 1)
        let expect = expectContinue ? "Expect: 100-continue" : "Expect:"
        let result = try curl(["-D", "-", "-H", expect, "--data-binary", "@" + file, server.httpsURL + "/big"])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("HTTP/1.1 413 "))
        #expect(result.output.contains("Connection: close\r\n"))
        #expect(result.output.contains("Content-Type: application/json\r\n"))
        #expect(result.output.contains(#"{"error":"request_too_large","#))
        #expect(!result.output.contains("<HTML"))
    }

    @Test func bodyAtTheLimitIsAccepted() throws {
        let server = try TestServer()
        let file = makeBodyFile(count: TestServer.maximumBodySize)
        let result = try curl(["--data-binary", "@" + file, server.httpsURL + "/limit"])
        #expect(result.output.contains(#""bodyLength":\#(TestServer.maximumBodySize)"#))
    }

    @Test(arguments: [TestServer.maximumBodySize + 1, 64 * 1024]) func oversizedChunkedBodyNeverSucceeds(size: Int) throws {
        let server = try TestServer()
        let file = makeBodyFile(count: size)
        let result = try curl([
            "-D", "-", "-H", "Transfer-Encoding: chunked", "-H", "Expect:", "--data-binary", "@" + file, server.httpsURL + "/chunked",
        ])
        #expect(!result.output.contains(" 200 "))
        #expect(!result.output.contains("<HTML"))
        if result.status == 0 {
            #expect(result.output.hasPrefix("HTTP/1.1 413 "))
            #expect(result.output.contains(#"{"error":"request_too_large","#))
        }
    }

    /// Request bodies come with Content-Length only (`RequestFraming`): a small chunked body is a JSON 400 over TLS too.
    @Test func smallChunkedBodyIsRefused() throws {
        let server = try TestServer()
        let result = try curl(["-D", "-", "-H", "Transfer-Encoding: chunked", "--data-binary", "hello", server.httpsURL + "/chunked"])
        #expect(result.output.hasPrefix("HTTP/1.1 400 "))
        #expect(result.output.contains("Connection: close\r\n"))
        #expect(result.output.contains(#"{"error":"bad_request","message":"Transfer-Encoding is not accepted: send the body with Content-Length."}"#))
    }

    @Test func oversizedHeaderGetsJSONErrorOrClose() throws {
        let server = try TestServer()
        let big = String(repeating: "h", count: TestServer.maximumHeaderSize + 100)
        for url in [server.httpsURL, server.httpURL] {
            let result = try curl(["-D", "-", "-H", "X-Big: " + big, url + "/header"])
            #expect(!result.output.contains("<HTML"))
            #expect(!result.output.contains(" 200 "))
            if result.status == 0 {
                #expect(result.output.hasPrefix("HTTP/1.1 431 ") || result.output.hasPrefix("HTTP/1.1 400 "))
                #expect(result.output.contains("Content-Type: application/json\r\n"))
                #expect(result.output.contains(#"{"error":"#))
            }
        }
    }

    @Test func malformedRequestLineGetsJSON400AndServingContinues() throws {
        let server = try TestServer()
        let raw = exchangeRaw(port: server.server.httpPort!, Array("THIS IS NOT HTTP\r\n\r\n".utf8))
        let text = String(decoding: raw ?? [], as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(text.contains("Content-Type: application/json\r\n"))
        #expect(text.hasSuffix(#"{"error":"bad_request","message":"The request is malformed or its header section exceeds 2048 bytes."}"#))
        #expect(!text.contains("<HTML"))

        let garbage = exchangeRaw(port: server.server.httpPort!, [0x00, 0xff, 0x0d, 0x0a, 0x0d, 0x0a])
        #expect(!String(decoding: garbage ?? [], as: UTF8.self).contains("<HTML"))

        let after = try curl([server.httpURL + "/still"])
        #expect(after.output.contains(#""path":"\/still""#))
        let afterTLS = try curl([server.httpsURL + "/still"])
        #expect(afterTLS.output.contains(#""path":"\/still""#))
    }

    @Test func disallowedMethodGetsJSON() throws {
        let server = try TestServer()
        let raw = exchangeRaw(port: server.server.httpPort!, Array("TRACE / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let text = String(decoding: raw ?? [], as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 501 ") || text.hasPrefix("HTTP/1.1 405 ") || text.hasPrefix("HTTP/1.1 400 "))
        #expect(text.contains(#"{"error":"#))
        #expect(!text.contains("<HTML"))
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try TestServer()
        let request = "GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let text = String(decoding: exchangeRaw(port: server.server.httpPort!, Array(request.utf8)) ?? [], as: UTF8.self)
        let first = text.range(of: #""path":"\/first""#)
        let second = text.range(of: #""path":"\/second""#)
        #expect(first != nil && second != nil)
        if let first, let second {
            #expect(first.lowerBound < second.lowerBound)
        }
    }

    @Test func oldTLSVersionsAreRefused() throws {
        let server = try TestServer()
        let curlOld = try curl(["--tlsv1.1", "--tls-max", "1.1", "--ciphers", "DEFAULT@SECLEVEL=0", server.httpsURL + "/"])
        #expect(curlOld.status != 0)
        for option in ["-tls1", "-tls1_1"] {
            let client = try run(
                "/usr/bin/openssl",
                ["s_client", "-connect", "127.0.0.1:\(server.server.httpsPort!)", option, "-cipher", "DEFAULT@SECLEVEL=0"],
                input: Data("Q\n".utf8)
            )
            #expect(client.status != 0)
            #expect(!client.output.contains("Cipher is ECDHE"))
        }
    }

    @Test func modernTLSVersionsAreAccepted() throws {
        let server = try TestServer()
        for (minimum, maximum, name) in [("--tlsv1.2", "1.2", "TLSv1.2"), ("--tlsv1.3", "1.3", "TLSv1.3")] {
            let result = try curl(["-v", minimum, "--tls-max", maximum, server.httpsURL + "/tls"])
            #expect(result.status == 0)
            #expect(result.errorOutput.contains("SSL connection using \(name)"))
            #expect(result.output.contains(#""path":"\/tls""#))
        }
        let client = try run(
            "/usr/bin/openssl",
            ["s_client", "-connect", "127.0.0.1:\(server.server.httpsPort!)", "-tls1_2"],
            input: Data("Q\n".utf8)
        )
        #expect(client.output.contains("Protocol  : TLSv1.2"))
        #expect(client.output.contains("ECDHE"))
    }

    /// TLS 1.2 suites without forward secrecy, with CBC, RC4, 3DES, NULL or export ciphers are refused; ECDHE with
    /// AES-GCM or ChaCha20-Poly1305 is accepted.
    @Test(arguments: [
        "AES128-SHA", "AES256-GCM-SHA384", "ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA384",
        "DES-CBC3-SHA", "RC4-SHA", "NULL-SHA256", "DHE-RSA-AES128-GCM-SHA256",
    ])
    func weakTLS12SuitesAreRefused(suite: String) throws {
        let server = try TestServer()
        let client = try run(
            "/usr/bin/openssl",
            [
                "s_client", "-connect", "127.0.0.1:\(server.server.httpsPort!)", "-tls1_2",
                "-cipher", "\(suite)@SECLEVEL=0",
            ],
            input: Data("Q\n".utf8)
        )
        #expect(client.status != 0)
        #expect(!client.output.contains("Cipher is \(suite)"))
    }

    @Test(arguments: ["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305"])
    func strongTLS12SuitesAreAccepted(suite: String) throws {
        let server = try TestServer()
        let client = try run(
            "/usr/bin/openssl",
            [
                "s_client", "-connect", "127.0.0.1:\(server.server.httpsPort!)", "-tls1_2",
                "-cipher", suite,
            ],
            input: Data("Q\n".utf8)
        )
        #expect(client.output.contains("Cipher is \(suite)"))
    }

    /// At the cap, a new connection takes the place of one idle the longest, or else of the oldest request still
    /// arriving (a trickling client's); a request that arrived whole and is being answered is never closed for room.
    @Test func connectionsAboveTheCapTakeTheIdleOrOldestIncompleteOnesPlace() throws {
        let server = try TestServer(threads: 1, maximumConnections: 2, handler: HoldingHandler())
        let port = server.server.httpPort!
        let held = try RawConnection(port: port)
        held.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
        usleep(100_000)
        let older = try RawConnection(port: port)
        older.send("GET /slow HTTP/1.1\r\nHost: x\r\n")
        usleep(200_000)
        let accepted = try curl([server.httpURL + "/capped"])
        #expect(accepted.output.contains(#""path":"\/capped""#), "\(accepted.output)")
        #expect(older.isClosedByServer(within: 1), "the incomplete request made way")
        #expect(String(decoding: held.receive(within: 3, until: "}"), as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"), "being answered")
        held.close()
        let idle = try (0..<2).map { _ in try RawConnection(port: port) }
        usleep(200_000)
        let second = try curl([server.httpURL + "/capped"])
        #expect(second.output.contains(#""path":"\/capped""#))
        #expect(idle[0].isClosedByServer(within: 1), "the one idle the longest made way")
        #expect(!idle[1].isClosedByServer(within: 0.1))
    }

    /// Over the per-address cap a new connection from that address takes the place of its own connection idle the
    /// longest, or else of its own oldest incomplete request; another address is not affected.
    @Test func connectionsAboveThePerAddressCapTakeTheirOwnIdleOrOldestIncompleteOnesPlace() throws {
        let server = try TestServer(threads: 1, maximumConnections: 100, maximumConnectionsPerAddress: 2)
        let port = server.server.httpPort!
        let busy = try (0..<2).map { _ in try RawConnection(port: port) }
        for connection in busy {
            connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n")
            usleep(100_000)
        }
        let other = try RawConnection(port: port, from: "127.0.0.2")
        other.send("GET /other HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(String(decoding: other.receiveUntilClosed(within: 2).bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(!busy[0].isClosedByServer(within: 0.1), "another address takes nothing of this one's")
        let makesWay = try RawConnection(port: port)
        makesWay.send("GET /new HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(String(decoding: makesWay.receiveUntilClosed(within: 2).bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(busy[0].isClosedByServer(within: 1), "the oldest incomplete request made way")
        #expect(!busy[1].isClosedByServer(within: 0.1))
        busy[1].send("\r\n")
        #expect(String(decoding: busy[1].receive(within: 2, until: "}"), as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
    }

    @Test func silentAndHalfSentRequestsTimeOut() throws {
        let server = try TestServer(readTimeoutSeconds: 1)
        for request in ["", "GET /slow HTTP/1.1\r\nHost: x\r\n"] {
            let started = Date()
            let answer = exchangeRaw(port: server.server.httpPort!, Array(request.utf8))
            #expect(answer == [])
            #expect(Date().timeIntervalSince(started) < 3)
        }
        let keptAlive = try curl(["-o", "/dev/null", "-w", "%{http_code}", server.httpsURL + "/after"])
        #expect(keptAlive.output == "200")
    }

    @Test func connectionsAreUncountedOnEveryPath() throws {
        let server = try TestServer()
        _ = try curl(["-o", "/dev/null", "-o", "/dev/null", server.httpsURL + "/a", server.httpsURL + "/b"])
        _ = try curl(["-H", "Expect:", "--data-binary", "@" + makeBodyFile(count: 10_000), server.httpsURL + "/big"])
        _ = try curl(["-H", "X-Big: " + String(repeating: "h", count: 5000), server.httpURL + "/header"])
        _ = try curl(["--tlsv1.1", "--tls-max", "1.1", "--ciphers", "DEFAULT@SECLEVEL=0", server.httpsURL + "/"])
        _ = try curl(["http://127.0.0.1:\(server.server.httpsPort!)/plain-to-tls"])
        _ = exchangeRaw(port: server.server.httpPort!, Array("BAD\r\n\r\n".utf8))
        _ = exchangeRaw(port: server.server.httpsPort!, [0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00])
        var remaining = server.server.openConnectionCount
        for _ in 0..<50 where remaining != 0 {
            usleep(100_000)
            remaining = server.server.openConnectionCount
        }
        #expect(remaining == 0)
    }

    @Test func stopClosesThePortsAndIsIdempotent() throws {
        let server = try TestServer()
        let httpsPort = server.server.httpsPort!
        let httpPort = server.server.httpPort!
        #expect(portIsOpen(httpsPort))
        _ = try curl(["-o", "/dev/null", server.httpsURL + "/"])
        server.server.stop()
        #expect(!portIsOpen(httpsPort))
        #expect(!portIsOpen(httpPort))
        server.server.stop()
    }

    @Test func stopUnderLoadReturnsAndClosesEverything() throws {
        let server = try TestServer()
        let urls = (0..<200).map { server.httpsURL + "/load/\($0)" }
        let clients = try (0..<4).map { _ in
            try SpawnedProcess("/usr/bin/curl", ["-s", "-k", "--max-time", "10", "-o", "/dev/null"] + urls)
        }
        usleep(300_000)
        server.server.stop()
        #expect(!portIsOpen(server.server.httpsPort!))
        for client in clients {
            client.waitUntilExit()
        }
    }

    @Test func stopRightAfterStartReturns() throws {
        for _ in 0..<5 {
            let server = try TestServer()
            server.server.stop()
        }
    }

    @Test func bindErrorsHaveCodes() throws {
        let files = try makeCertificate()
        let tls = try TLSServerContext(certificateChainFile: files.certificate, privateKeyFile: files.key)
        #expect(throws: HTTPServerError.self) {
            try HTTPServer(configuration: HTTPServerConfiguration(httpAddress: "not-an-address", log: .discarding), handler: EchoHandler())
        }
        do {
            _ = try HTTPServer(configuration: HTTPServerConfiguration(httpAddress: "127.0.0.1:99999", log: .discarding), handler: EchoHandler())
            Issue.record("expected http.invalidAddress")
        } catch {
            #expect(error.code == .invalidAddress)
        }
        let first = try HTTPServer(
            configuration: HTTPServerConfiguration(httpsAddress: "127.0.0.1:0", tls: tls, log: .discarding),
            handler: EchoHandler()
        )
        do {
            _ = try HTTPServer(
                configuration: HTTPServerConfiguration(httpsAddress: "127.0.0.1:\(first.httpsPort!)", tls: tls, log: .discarding),
                handler: EchoHandler()
            )
            Issue.record("expected http.bindFailed")
        } catch {
            #expect(error.code == .bindFailed)
        }
        do {
            _ = try HTTPServer(configuration: HTTPServerConfiguration(httpsAddress: "127.0.0.1:0", log: .discarding), handler: EchoHandler())
            Issue.record("expected http.invalidConfiguration")
        } catch {
            #expect(error.code == .invalidConfiguration)
        }
        first.stop()
    }
}
