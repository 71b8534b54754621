// Target `password-hash`: PasswordHashes.PasswordHash — the reader of imported password hashes (PHC strings, bcrypt,
// Django, passkeyd's Firebase form) — then, for hashes whose work is small, verification with a fixed password. The
// input is the hash text.
import Foundation
import PasswordHashes

/// Whether verifying `hash` costs little enough to run per fuzz input.
private func isCheap(_ hash: PasswordHash) -> Bool {
    switch hash.algorithm {
    case .argon2(_, _, let memoryKiB, let iterations, _): memoryKiB <= 256 && iterations <= 2
    case .scrypt(let costLog2, let blockSize, let parallelism): costLog2 <= 8 && blockSize <= 8 && parallelism <= 2
    case .pbkdf2(_, let iterations): iterations <= 5_000
    case .bcrypt(let cost): cost <= 5
    case .firebaseScrypt(let costLog2, let blockSize, _, _): costLog2 <= 8 && blockSize <= 8
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: bytes(data, size), as: UTF8.self)
    guard let hash = try? PasswordHash(text) else { return 0 }
    guard hash.encoded == text else { fuzzFailure("a parsed hash is not kept as given") }
    guard let reread = try? PasswordHash(hash.encoded), reread == hash else { fuzzFailure("a parsed hash does not read back") }
    if isCheap(hash) {
        _ = try? hash.verify(Array("password".utf8))
        _ = try? hash.timingTwin.verify(Array("password".utf8))
    }
    return 0
}
