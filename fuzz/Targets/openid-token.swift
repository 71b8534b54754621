import CryptoCore
import Foundation

// Target `openid-token`: the OpenID Connect parsers that see bytes an issuer or a client chooses — a discovery
// document, an issuer's JWKS, the ID token claims (`IDTokenClaims(claims:)`, reached in production only after the
// signature verifies, so fuzzed directly here), and the whole verifier on the input as a token against a fixed key
// set (which must refuse it: nothing here is signed by that key).
// The first byte chooses the parser; the rest is its input.
@testable import OpenIDConnect

private let fixedKeySet: IssuerKeySet? = {
    guard let key = try? PrivateKey.generateEC(.p256).publicKey(), let (x, y) = try? key.ecCoordinates() else { return nil }
    let document =
        #"{"keys":[{"kty":"EC","crv":"P-256","kid":"fuzz","use":"sig","alg":"ES256","x":"\#(Base64URL.encode(x))","y":"\#(Base64URL.encode(y))"}]}"#
    return try? IssuerKeySet(json: Array(document.utf8))
}()

private let verifier = IDTokenVerifier(
    issuer: .google,
    clientIDs: ["fuzz.apps.googleusercontent.com"],
    time: FixedTime(Date(timeIntervalSince1970: 1_700_000_000))
)

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = bytes(data, size)
    let body = Array(input.dropFirst())
    switch input[0] % 4 {
    case 0:
        if let document = try? DiscoveryDocument(json: body, expectedIssuer: .google) {
            guard document.issuer == "https://accounts.google.com" else { fuzzFailure("a discovery document of another issuer was accepted") }
            for url in [document.jwksURL, document.authorizationEndpoint, document.tokenEndpoint].compactMap({ $0 }) where url.scheme != "https" {
                guard url.scheme == "http", IssuerIdentifier.isLoopback(url.host ?? "") else { fuzzFailure("an unsafe endpoint was accepted") }
            }
        }
    case 1:
        if let keys = try? IssuerKeySet(json: body) {
            guard !keys.keys.isEmpty else { fuzzFailure("a JWKS without usable keys was accepted") }
        }
    case 2:
        _ = try? IDTokenClaims(claims: body)
    default:
        guard let keys = fixedKeySet else { fuzzFailure("the fixed key set could not be built") }
        if (try? verifier.verify(String(decoding: body, as: UTF8.self), keys: keys, rawNonce: "fuzz")) != nil {
            fuzzFailure("a token not signed by the fixed key verified")
        }
    }
    return 0
}
