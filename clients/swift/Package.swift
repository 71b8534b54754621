// swift-tools-version: 6.0
import PackageDescription

// PasskeydClient: passkeyd's client for iOS, macOS and other Swift apps. No outside packages: Foundation (and, on
// Linux, FoundationNetworking for URLSession) and, on Apple platforms, CryptoKit and AuthenticationServices. On Linux
// the nonce's SHA-256 comes from the system's OpenSSL (libcrypto) instead of CryptoKit.
let package = Package(
    name: "PasskeydClient",
    platforms: [.iOS(.v16), .macOS(.v13), .visionOS(.v1)],
    products: [
        .library(name: "PasskeydClient", targets: ["PasskeydClient"])
    ],
    targets: [
        .systemLibrary(name: "COpenSSLDigest", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(
            name: "PasskeydClient",
            dependencies: [.target(name: "COpenSSLDigest", condition: .when(platforms: [.linux]))]
        ),
        .testTarget(name: "PasskeydClientTests", dependencies: ["PasskeydClient"]),
    ],
    swiftLanguageModes: [.v6]
)
