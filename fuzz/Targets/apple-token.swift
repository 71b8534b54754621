import CryptoCore
import Foundation

// Target `apple-token`: the Sign in with Apple parsers that see untrusted bytes — the identity-token claims
// (`AppleIdentityToken(claims:)`, reached in production only after the RS256 signature verifies, so fuzzed
// directly here), a JWKS document, a notification's `events` claim, and the whole verifier on the input as a
// token against a fixed key set (which must refuse it: nothing here is signed by that key).
// The first byte chooses the parser; the rest is its input.
@testable import AppleSignIn

private let fixedKeySet: JSONWebKeySet? = {
    guard let key = try? PrivateKey.generateRSA(bits: 2048).publicKey(), let (modulus, exponent) = try? key.rsaComponents() else { return nil }
    let document =
        #"{"keys":[{"kty":"RSA","kid":"fuzz","use":"sig","alg":"RS256","n":"\#(Base64URL.encode(modulus))","e":"\#(Base64URL.encode(exponent))"}]}"#
    return try? JSONWebKeySet(json: Array(document.utf8))
}()

private let verifier = IdentityTokenVerifier(audiences: ["com.example.app"], time: FixedTime(Date(timeIntervalSince1970: 1_700_000_000)))

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = bytes(data, size)
    let body = Array(input.dropFirst())
    switch input[0] % 4 {
    case 0:
        _ = try? AppleIdentityToken(claims: body)
    case 1:
        if let keys = try? JSONWebKeySet(json: body) {
            guard !keys.keys.isEmpty else { fuzzFailure("a JWKS without usable keys was accepted") }
        }
    case 2:
        _ = try? ServerNotificationEvent(json: String(decoding: body, as: UTF8.self))
    default:
        guard let keys = fixedKeySet else { fuzzFailure("the fixed key set could not be built") }
        if (try? verifier.verify(String(decoding: body, as: UTF8.self), keys: keys, nonce: .optional)) != nil {
            fuzzFailure("a token not signed by the fixed key verified")
        }
    }
    return 0
}
