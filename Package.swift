// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "passkeyd",
    // The server runs on Linux (macOS for development); iOS and visionOS are here for the client library alone.
    platforms: [.macOS(.v15), .iOS(.v16), .visionOS(.v1)],
    products: [
        .executable(name: "passkeyd", targets: ["passkeyd"]),
        // The Swift client for apps, by the repository's URL (clients/swift is the same library as a package of its
        // own, with its tests). It depends on none of the server's targets; on Linux it needs libcrypto for one hash.
        .library(name: "PasskeydClient", targets: ["PasskeydClient"]),
    ],
    targets: [
        // C libraries from Debian, each imported by exactly one Swift wrapper module.
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibCBOR", pkgConfig: "libcbor", providers: [.apt(["libcbor-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibEvent", pkgConfig: "libevent_openssl", providers: [.apt(["libevent-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // Imported password hashes only: bcrypt (libxcrypt) and Argon2 (the reference implementation).
        .systemLibrary(name: "CXCrypt", pkgConfig: "libcrypt", providers: [.apt(["libcrypt-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        // Unicode TS #39 confusables (ICU's spoof checker), imported only by Confusables. A C target, not a system
        // library: its header must not show ICU's types to Swift, which Foundation's own copy of ICU would clash with.
        .target(name: "CICU"),
        // Outbound mail: libcurl's SMTP client, imported only by MailTransport.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // The client library (clients/swift), offered here too so that an app can add the repository by its URL.
        .systemLibrary(
            name: "COpenSSLDigest",
            path: "clients/swift/Sources/COpenSSLDigest",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "PasskeydClient",
            dependencies: [.target(name: "COpenSSLDigest", condition: .when(platforms: [.linux]))],
            path: "clients/swift/Sources/PasskeydClient"
        ),

        // Pure layers.
        // JSON reading and writing: the value tree, the strict parser, the writer, the tree decoders.
        .target(name: "JSON"),
        // The server's threads: plain POSIX threads, named on themselves.
        .target(name: "SystemThreads"),
        .target(name: "CBOR", dependencies: ["CLibCBOR"]),
        .target(name: "CryptoCore", dependencies: ["COpenSSL", "JSON"]),
        .target(name: "WebAuthnCore", dependencies: ["CBOR", "CryptoCore", "JSON"]),
        .target(name: "AppleSignIn", dependencies: ["CryptoCore", "JSON"]),
        // Imported password hashes (PHC strings, bcrypt, Django, Firebase's scrypt), verified only as a bridge to passkeys.
        .target(name: "PasswordHashes", dependencies: ["CryptoCore", "CXCrypt", "CArgon2"]),
        // OpenID Connect relying-party verification for any issuer (Google, Microsoft Entra, a generic one): ID tokens,
        // issuer key sets, discovery documents. Pure, like AppleSignIn.
        .target(name: "OpenIDConnect", dependencies: ["CryptoCore", "JSON"]),
        // The test-vector schema and its runner (`passkeyd verify`, the vector tests): on top of the core, not in it.
        .target(name: "WebAuthnVectors", dependencies: ["WebAuthnCore", "CryptoCore", "JSON"]),

        // Look-alike names (Unicode TS #39 skeletons and mixed scripts), for the usernames every store keys.
        .target(name: "Confusables", dependencies: ["CICU"]),

        // Storage: protocols and the in-memory driver; SQLite driver; PostgreSQL driver for several nodes.
        .target(name: "Storage", dependencies: ["Confusables"]),
        .target(name: "StorageSQLite", dependencies: ["Storage", "CSQLite", "SystemThreads"]),
        .target(name: "StoragePostgres", dependencies: ["Storage", "CLibPQ", "SystemThreads"]),

        // The readers of user exports: passkeyd's own NDJSON (and its lines' writer), and the files of the systems an app
        // moves from (Firebase, Supabase, Auth0), parsed into typed records; applying them to accounts is the server's.
        .target(name: "UserImport", dependencies: ["CryptoCore", "JSON", "Storage", "PasswordHashes", "WebAuthnCore"]),

        // Mail that passkeyd sends itself: composing RFC 5322 messages and sending them to an SMTP relay with libcurl.
        .target(name: "MailTransport", dependencies: ["CCurl"]),

        // Logs and metrics: the one logger type, the metrics registry and its Prometheus text.
        .target(name: "Observability"),
        // HTTP header fields, shared by the server's requests and responses and the outbound client's.
        .target(name: "HTTPFields"),
        // libevent's Swift face, the only importer of CLibEvent: the event base, events, buffers, bufferevents (OpenSSL's
        // too), evhttp's server, requests and connections, the resolver. Per-request methods are `@inlinable`.
        .target(name: "LibEvent", dependencies: ["CLibEvent", "HTTPFields"]),
        // HTTP/1.1 over TLS on libevent; the relying-party server composes everything.
        .target(name: "HTTPServer", dependencies: ["LibEvent", "HTTPFields", "CryptoCore", "Observability", "SystemThreads"]),
        // The one outbound HTTP(S) client: libevent's HTTP client over OpenSSL, on a loop thread of its own.
        .target(name: "OutboundHTTP", dependencies: ["LibEvent", "HTTPFields", "CryptoCore", "SystemThreads"]),
        // Reading the configuration file: typed access to one block with errors naming the full key, and the one
        // configuration error type, so that each feature module parses its own settings block.
        .target(name: "ConfigurationReading", dependencies: ["JSON", "OutboundHTTP"]),
        // Associated domains: the `associatedDomains` block, the files it publishes (apple-app-site-association,
        // assetlinks.json, webauthn, passkey-endpoints) and `passkeyd check-domain`, which fetches a domain's files
        // through the outbound client. The server serves the files (WellKnownFiles+Response).
        .target(
            name: "AssociatedDomains",
            dependencies: ["ConfigurationReading", "CryptoCore", "HTTPFields", "HTTPServer", "JSON", "OutboundHTTP"]
        ),
        // The access tokens passkeyd signs for the app's API and for OpenID clients: the `tokens` and `backends` settings,
        // the signing keys (sealed in the store, rotated on a schedule, held in memory by a ring), minting and verifying.
        // The HTTP edge (the token and introspection endpoints, the key worker) stays in the server.
        .target(
            name: "AccessTokens",
            dependencies: ["ConfigurationReading", "CryptoCore", "JSON", "Observability", "Storage"]
        ),
        // Webhooks by Standard Webhooks: the `webhooks` block's endpoints, the signed message of a delivery attempt and
        // the retry policy. The outbox worker that claims and records deliveries (it needs the store and the server's
        // composition) stays in the server.
        .target(
            name: "Webhooks",
            dependencies: ["ConfigurationReading", "CryptoCore", "HTTPFields", "JSON", "Observability", "OutboundHTTP", "Storage"]
        ),
        // The HTTP edge every handler shares: `ServerError` (every client code, its status and message, the mappings of the
        // core's, the store's and the importers' errors) and the JSON bodies of requests and answers.
        .target(name: "HTTPEdge", dependencies: ["CryptoCore", "HTTPServer", "JSON", "Storage", "UserImport", "WebAuthnCore"]),
        // The one list of account events and their payloads, appended with each change and delivered by webhooks.
        .target(name: "AccountEvents", dependencies: ["AppleSignIn", "CryptoCore", "HTTPEdge", "JSON", "Storage"]),
        // Threads that work in the background: a round every interval (`PeriodicWorker`), a cached document's fetch schedule
        // (`BackgroundRefresh`) and the durable outboxes' worker (`OutboxWorker`, run by an `OutboxDelivery`).
        .target(name: "BackgroundWork", dependencies: ["CryptoCore", "SystemThreads"]),
        // Mail that passkeyd writes: the `email` block with its templates, the messages (`MailComposer`) and the bounce
        // webhooks of the mail providers, verified and read, and the outbox's delivery (`MailDelivery`, run by an
        // `OutboxWorker`), which sends through MailTransport.
        .target(
            name: "Email",
            dependencies: ["BackgroundWork", "ConfigurationReading", "CryptoCore", "HTTPEdge", "JSON", "MailTransport", "Observability", "Storage"]
        ),
        // The identity-provider seam (`IdentityProvider`, `VerifiedIdentity`) and its providers: any OpenID Connect issuer
        // and Sign in with Apple (its configuration, keys, token endpoints, revocation worker and team transfer).
        .target(
            name: "FederatedIdentity",
            dependencies: [
                "AccountEvents", "AppleSignIn", "BackgroundWork", "ConfigurationReading", "CryptoCore", "HTTPEdge", "HTTPFields", "JSON",
                "Observability", "OpenIDConnect", "OutboundHTTP", "Storage", "WebAuthnCore",
            ]
        ),
        // Rate limits: the `rateLimits` block, the node's token buckets, the buckets shared through the store (with the
        // outage rule when the store cannot answer) and the limits a request is checked against (`RequestLimits`).
        .target(
            name: "RateLimiting",
            dependencies: ["ConfigurationReading", "CryptoCore", "HTTPEdge", "HTTPServer", "Observability", "Storage"]
        ),
        // The configuration file: `ServerConfiguration` (parsed from JSON without touching the file system, then the files
        // it names loaded) with the server's blocks; the feature modules read their own blocks.
        .target(
            name: "ConfigurationFile",
            dependencies: [
                "AccessTokens", "AccountEvents", "AssociatedDomains", "ConfigurationReading", "CryptoCore", "Email", "FederatedIdentity",
                "HTTPServer", "JSON", "Observability", "RateLimiting", "WebAuthnCore", "Webhooks",
            ]
        ),
        // Every change of an account that spans several records (`AccountService`), each one transaction with its events,
        // for the HTTP handlers, the admin API, the command line and Apple's notifications alike.
        .target(
            name: "Accounts",
            dependencies: [
                "AccountEvents", "AppleSignIn", "CryptoCore", "Email", "FederatedIdentity", "HTTPEdge", "Observability", "Storage", "WebAuthnCore",
            ]
        ),
        // The OpenAPI document of the API (`GET /openapi.json`) and the script of the recovery link page
        // (`GET /auth/recovery/email/page.js`) are compiled in, so the binary needs no file to serve them.
        .target(
            name: "RelyingPartyServer",
            dependencies: [
                "WebAuthnCore", "CryptoCore", "JSON", "Storage", "HTTPServer", "AppleSignIn", "OpenIDConnect", "Observability", "PasswordHashes",
                "Confusables", "MailTransport", "UserImport", "ConfigurationReading", "AssociatedDomains", "AccessTokens", "Webhooks",
                "HTTPEdge", "AccountEvents", "ConfigurationFile", "BackgroundWork", "Email", "FederatedIdentity", "Accounts",
                "RateLimiting", "OutboundHTTP", "HTTPFields", "SystemThreads",
            ],
            resources: [.embedInCode("OpenAPI/openapi.json"), .embedInCode("Email/recovery-page.js")]
        ),
        .executableTarget(
            name: "passkeyd",
            dependencies: [
                "RelyingPartyServer", "StorageSQLite", "StoragePostgres", "Storage", "WebAuthnCore", "WebAuthnVectors", "HTTPServer", "CryptoCore",
                "JSON", "AppleSignIn", "Observability", "UserImport", "ConfigurationReading", "AssociatedDomains", "AccessTokens",
                "ConfigurationFile", "HTTPEdge", "OutboundHTTP",
            ]
        ),

        // Benchmarks (bench/): run with `make bench`.
        .executableTarget(
            name: "passkeyd-bench",
            dependencies: ["WebAuthnCore", "CryptoCore", "CBOR", "AccessTokens", "Storage"],
            path: "bench/core"
        ),
        .executableTarget(
            name: "passkeyd-loadgen",
            dependencies: ["WebAuthnCore", "CryptoCore", "JSON", "CBOR", "HTTPServer"],
            path: "bench/loadgen"
        ),

        // Tests.
        .target(
            name: "TestSupport",
            dependencies: [
                "WebAuthnCore", "WebAuthnVectors", "CBOR", "CryptoCore", "Storage", "HTTPServer", "Observability", "AssociatedDomains",
                "ConfigurationReading", "JSON", "HTTPFields", "OutboundHTTP",
            ],
            path: "Tests/TestSupport"
        ),
        // The device side of the client libraries' tests (clients/swift): the software authenticator and the Apple stand-in
        // as a process those tests drive.
        .executableTarget(
            name: "passkeyd-test-device",
            dependencies: ["TestSupport", "WebAuthnCore", "CryptoCore"],
            path: "Tests/TestDevice"
        ),
        .testTarget(name: "CBORTests", dependencies: ["CBOR"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "ConfusablesTests", dependencies: ["Confusables"]),
        .testTarget(name: "CryptoCoreTests", dependencies: ["CryptoCore", "TestSupport"]),
        .testTarget(name: "WebAuthnCoreTests", dependencies: ["WebAuthnCore", "WebAuthnVectors", "TestSupport", "CBOR", "CryptoCore", "JSON"]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "StorageSQLite", "StoragePostgres", "TestSupport", "CryptoCore"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "LibEvent", "HTTPFields", "CryptoCore", "TestSupport", "Observability"]),
        // The outbound client against the project's own HTTPS server on loopback.
        .testTarget(name: "OutboundHTTPTests", dependencies: ["OutboundHTTP", "HTTPServer", "HTTPFields", "CryptoCore", "TestSupport"]),
        .testTarget(name: "ObservabilityTests", dependencies: ["Observability"]),
        .testTarget(name: "AppleSignInTests", dependencies: ["AppleSignIn", "CryptoCore", "TestSupport"]),
        // The hashes are read from the source folder (`Fixtures/hashes.json`, written by Tests/Python/passwords).
        .testTarget(name: "PasswordHashesTests", dependencies: ["PasswordHashes", "CryptoCore"], exclude: ["Fixtures"]),
        .testTarget(name: "OpenIDConnectTests", dependencies: ["OpenIDConnect", "CryptoCore", "TestSupport"]),
        .testTarget(name: "MailTransportTests", dependencies: ["MailTransport", "TestSupport"]),
        .testTarget(name: "UserImportTests", dependencies: ["UserImport", "Storage", "JSON"]),
        // The access tokens' pieces on their own (the endpoints and the key worker are driven in RelyingPartyServerTests).
        .testTarget(name: "AccessTokensTests", dependencies: ["AccessTokens", "CryptoCore"]),
        // The webhook endpoints, messages and retry policy on their own (deliveries are driven in RelyingPartyServerTests).
        .testTarget(
            name: "WebhooksTests",
            dependencies: ["Webhooks", "ConfigurationReading", "CryptoCore", "HTTPFields", "OutboundHTTP", "JSON", "Observability", "Storage"]
        ),
        // The domain check against local stand-ins of a domain and Apple's CDN (no server: the domain publishes the
        // module's own files).
        .testTarget(
            name: "AssociatedDomainsTests",
            dependencies: ["AssociatedDomains", "ConfigurationReading", "TestSupport", "HTTPServer", "HTTPFields", "OutboundHTTP", "CryptoCore"]
        ),
        // The configuration file parsed on its own (`ServerConfiguration(json:)` and each block); what a running server
        // makes of it is tested in RelyingPartyServerTests.
        .testTarget(
            name: "ConfigurationFileTests",
            dependencies: ["ConfigurationFile", "AccessTokens", "ConfigurationReading", "CryptoCore", "Observability", "WebAuthnCore"]
        ),
        // passkeydTests also holds the whole-tree checks (every error code type), so it sees every module.
        .testTarget(
            name: "passkeydTests",
            dependencies: [
                "passkeyd", "RelyingPartyServer", "HTTPServer", "Storage", "StorageSQLite", "StoragePostgres", "AppleSignIn", "OpenIDConnect",
                "WebAuthnCore", "CryptoCore", "JSON", "PasswordHashes",
                "CBOR", "Observability", "MailTransport", "UserImport", "ConfigurationReading", "AccessTokens", "Webhooks",
                "HTTPEdge", "AccountEvents", "ConfigurationFile", "OutboundHTTP",
            ]
        ),
        .testTarget(
            name: "RelyingPartyServerTests",
            dependencies: [
                "RelyingPartyServer", "TestSupport", "Storage", "StorageSQLite", "StoragePostgres", "HTTPServer", "WebAuthnCore", "CryptoCore",
                "JSON", "AppleSignIn", "OpenIDConnect", "Observability", "PasswordHashes", "MailTransport", "UserImport",
                "ConfigurationReading", "AssociatedDomains", "AccessTokens", "Webhooks", "HTTPEdge", "AccountEvents", "ConfigurationFile",
                "OutboundHTTP", "HTTPFields",
            ],
            // Read by path (`#filePath`), like the repository's `www`.
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
