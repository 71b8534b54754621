// Target `jws`: CryptoCore.CompactJWS — the shared compact-JWS parser used by SafetyNet (and, on another branch, the
// Apple identity-token parser) — then certificates() and verifySignature with fixed keys and with the x5c leaf's key.
// The first byte chooses strict or lenient base64url; the rest is the JWS text.
import CryptoCore
import Foundation

/// Fixed keys of each family (none matches a fuzzed signature).
private let fixedKeys: [PublicKey] = {
    var keys: [PublicKey] = []
    // The W3C attestation root's P-256 key, an Ed25519 key and the SafetyNet vectors' RSA leaf keys.
    if let root = Vectors.w3cRoot.first, let key = try? root.publicKey() { keys.append(key) }
    if let key = try? PublicKey(edwards: .ed25519, raw: [UInt8](repeating: 0x11, count: 32).enumerated().map { UInt8($0.offset) ^ $0.element }) {
        keys.append(key)
    }
    return keys
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let input = bytes(data, size)
    let strict = input[0] & 1 == 0
    let text = String(decoding: input.dropFirst(), as: UTF8.self)
    guard let jws = try? CompactJWS(text, strictBase64URL: strict) else { return 0 }
    _ = jws.header.kid
    _ = jws.header.typ
    guard jws.signingInput.count <= text.utf8.count else { fuzzFailure("signing input longer than the token") }
    var keys = fixedKeys
    if let chain = try? jws.certificates(), let leaf = chain.first, let key = try? leaf.publicKey() {
        keys.append(key)
    }
    for key in keys {
        _ = jws.verifySignature(with: key)
        _ = jws.verifySignature(with: key, allowedAlgorithms: ["ES256", "RS256"])
    }
    return 0
}
