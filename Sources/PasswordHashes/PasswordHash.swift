import CryptoCore
import Foundation

/// An imported password hash, read from its text and checked against `PasswordHashLimits`, that verifies a password
/// with the library of its algorithm: Argon2 (libargon2), scrypt and PBKDF2 (OpenSSL), bcrypt (libxcrypt's `crypt_rn`),
/// and Firebase's scrypt variant (OpenSSL's scrypt and AES-256-CTR). Passwords only ever arrive with an import: passkeyd
/// never makes one of these for a new password.
///
/// The formats read (`PasswordHash(_:)`, parsed by `PasswordHashParser`):
/// - PHC strings: `$argon2id$v=19$m=…,t=…,p=…$salt$hash` (and `argon2i`, `argon2d`); passlib's
///   `$scrypt$ln=…,r=…,p=…$salt$hash`, `$pbkdf2-sha256$rounds$salt$hash` and `$pbkdf2-sha512$…` (salt and hash in
///   passlib's base64, `.` for `+`).
/// - bcrypt: `$2a$`, `$2b$`, `$2y$` with its cost.
/// - Django: `pbkdf2_sha256$rounds$salt$hash`.
/// - Firebase's scrypt, made by `PasswordHash.firebaseScrypt(…)` from an export's `passwordHash` and `salt` and the
///   project's parameters, and kept as `$firebase-scrypt$ln=…,r=…,sep=…,key=…$salt$hash`.
public struct PasswordHash: Sendable, Equatable {
    public enum Algorithm: Sendable, Equatable {
        case argon2(variant: Argon2Variant, version: Int, memoryKiB: Int, iterations: Int, parallelism: Int)
        case scrypt(costLog2: Int, blockSize: Int, parallelism: Int)
        case pbkdf2(digest: PasswordKeyDerivation.Digest, iterations: Int)
        /// bcrypt computes from its whole setting string (`encoded`).
        case bcrypt(cost: Int)
        /// Firebase: scrypt(password, salt ‖ separator, 2^costLog2, blockSize, 1, 64), whose first 32 bytes key
        /// AES-256-CTR (counter 0) over the project's signer key; the result is the hash.
        case firebaseScrypt(costLog2: Int, blockSize: Int, saltSeparator: [UInt8], signerKey: [UInt8])
    }

    public enum Argon2Variant: String, Sendable {
        case argon2d, argon2i, argon2id
    }

    public let algorithm: Algorithm
    public let salt: [UInt8]
    public let hash: [UInt8]
    /// The text as stored (what was imported; Firebase's in passkeyd's own form).
    public let encoded: String

    /// Reads `text`, or throws `password.malformed`, `password.unsupportedAlgorithm` or
    /// `password.parametersOutOfBounds`.
    public init(_ text: String) throws(PasswordHashError) {
        self = try PasswordHashParser.parse(text)
    }

    init(algorithm: Algorithm, salt: [UInt8], hash: [UInt8], encoded: String) throws(PasswordHashError) {
        self.algorithm = algorithm
        self.salt = salt
        self.hash = hash
        self.encoded = encoded
        try checkBounds()
    }

    /// A Firebase Auth export's user (`passwordHash`, `salt`, base64) under the project's hash parameters, named as the
    /// Firebase console shows them (`base64_signer_key`, `base64_salt_separator`, `rounds`, `mem_cost`).
    public static func firebaseScrypt(
        passwordHash: String,
        salt: String,
        signerKey: String,
        saltSeparator: String,
        rounds: Int,
        memoryCost: Int
    ) throws(PasswordHashError) -> PasswordHash {
        guard let hash = PasswordHashParser.base64(passwordHash, padded: true), let saltBytes = PasswordHashParser.base64(salt, padded: true)
        else { throw PasswordHashError(.malformed, "a Firebase passwordHash or salt is not base64") }
        guard let key = PasswordHashParser.base64(signerKey, padded: true), !key.isEmpty,
            let separator = PasswordHashParser.base64(saltSeparator, padded: true)
        else { throw PasswordHashError(.malformed, "the Firebase signer key or salt separator is not base64") }
        let algorithm = Algorithm.firebaseScrypt(costLog2: memoryCost, blockSize: rounds, saltSeparator: separator, signerKey: key)
        let encoded =
            "$firebase-scrypt$ln=\(memoryCost),r=\(rounds),sep=\(PasswordHashParser.phcBase64(separator)),key=\(PasswordHashParser.phcBase64(key))"
            + "$\(PasswordHashParser.phcBase64(saltBytes))$\(PasswordHashParser.phcBase64(hash))"
        return try PasswordHash(algorithm: algorithm, salt: saltBytes, hash: hash, encoded: encoded)
    }

    /// A hash of the same algorithm, parameters and sizes under a fixed salt, which no password matches: verified
    /// for an account without a hash, so that an unknown account costs what a known one does.
    public var timingTwin: PasswordHash {
        let twinSalt = [UInt8](repeating: 0x5A, count: salt.count)
        let twinHash = [UInt8](repeating: 0, count: hash.count)
        let twinEncoded: String
        if case .bcrypt(let cost) = algorithm {
            twinEncoded = "$2b$" + (cost < 10 ? "0" : "") + "\(cost)$" + String(repeating: ".", count: 53)
        } else {
            twinEncoded = encoded
        }
        // Built from a hash that passed the bounds: it passes them too.
        return (try? PasswordHash(algorithm: algorithm, salt: twinSalt, hash: twinHash, encoded: twinEncoded)) ?? self
    }

    /// Whether `password` (its UTF-8 bytes) is the one hashed, compared in constant time.
    /// - Throws: `password.internal` when the library fails.
    public func verify(_ password: [UInt8]) throws(PasswordHashError) -> Bool {
        guard password.count <= PasswordHashLimits.maximumPasswordBytes, !password.isEmpty else { return false }
        let computed: [UInt8]
        switch algorithm {
        case .argon2(let variant, let version, let memoryKiB, let iterations, let parallelism):
            computed = try Argon2.hash(
                password: password,
                salt: salt,
                variant: variant,
                version: version,
                memoryKiB: memoryKiB,
                iterations: iterations,
                parallelism: parallelism,
                length: hash.count
            )
        case .scrypt(let costLog2, let blockSize, let parallelism):
            computed = try Self.openSSL { () throws(CryptoError) in
                try PasswordKeyDerivation.scrypt(
                    password: password,
                    salt: salt,
                    costLog2: costLog2,
                    blockSize: blockSize,
                    parallelism: parallelism,
                    length: hash.count
                )
            }
        case .pbkdf2(let digest, let iterations):
            computed = try Self.openSSL { () throws(CryptoError) in
                try PasswordKeyDerivation.pbkdf2(password: password, salt: salt, iterations: iterations, digest: digest, length: hash.count)
            }
        case .bcrypt:
            // crypt_rn reads a C string: a password with a NUL byte is none that bcrypt libraries accept.
            guard !password.contains(0) else { return false }
            return ConstantTime.equals(try BCrypt.crypt(password: password, setting: encoded), Array(encoded.utf8))
        case .firebaseScrypt(let costLog2, let blockSize, let separator, let signerKey):
            computed = try Self.openSSL { () throws(CryptoError) in
                let derived = try PasswordKeyDerivation.scrypt(
                    password: password,
                    salt: salt + separator,
                    costLog2: costLog2,
                    blockSize: blockSize,
                    parallelism: 1,
                    length: 64
                )
                return try PasswordKeyDerivation.aes256CTR(key: Array(derived.prefix(32)), iv: [UInt8](repeating: 0, count: 16), data: signerKey)
            }
        }
        return ConstantTime.equals(computed, hash)
    }

    /// OpenSSL's failure as `password.internal`.
    private static func openSSL(_ body: () throws(CryptoError) -> [UInt8]) throws(PasswordHashError) -> [UInt8] {
        do {
            return try body()
        } catch {
            throw PasswordHashError(.internalFailure, error.reason)
        }
    }

    /// `password.parametersOutOfBounds` unless every work factor and size is within `PasswordHashLimits`.
    private func checkBounds() throws(PasswordHashError) {
        func require(_ condition: Bool, _ what: String) throws(PasswordHashError) {
            guard condition else { throw PasswordHashError(.parametersOutOfBounds, "\(what) is outside passkeyd's bounds") }
        }
        try require(encoded.utf8.count <= PasswordHashLimits.maximumEncodedLength, "the hash's length")
        switch algorithm {
        case .argon2(_, let version, let memoryKiB, let iterations, let parallelism):
            try require(version == 0x10 || version == 0x13, "the Argon2 version")
            try require(PasswordHashLimits.argon2MemoryKiB.contains(memoryKiB) && memoryKiB >= 8 * parallelism, "the Argon2 memory")
            try require(PasswordHashLimits.argon2Iterations.contains(iterations), "the Argon2 passes")
            try require(PasswordHashLimits.argon2Parallelism.contains(parallelism), "the Argon2 lanes")
        case .scrypt(let costLog2, let blockSize, let parallelism):
            try checkScrypt(costLog2: costLog2, blockSize: blockSize, parallelism: parallelism)
        case .firebaseScrypt(let costLog2, let blockSize, let separator, let key):
            try checkScrypt(costLog2: costLog2, blockSize: blockSize, parallelism: 1)
            try require(separator.count <= 64 && key.count <= 128, "the Firebase signer key or separator")
        case .pbkdf2(_, let iterations):
            try require(PasswordHashLimits.pbkdf2Iterations.contains(iterations), "the PBKDF2 rounds")
        case .bcrypt(let cost):
            try require(PasswordHashLimits.bcryptCost.contains(cost), "the bcrypt cost")
            return
        }
        try require(PasswordHashLimits.saltBytes.contains(salt.count), "the salt's size")
        try require(PasswordHashLimits.hashBytes.contains(hash.count), "the hash's size")
    }

    private func checkScrypt(costLog2: Int, blockSize: Int, parallelism: Int) throws(PasswordHashError) {
        guard PasswordHashLimits.scryptCostLog2.contains(costLog2), PasswordHashLimits.scryptBlockSize.contains(blockSize),
            PasswordHashLimits.scryptParallelism.contains(parallelism),
            128 * blockSize * (1 << costLog2) <= PasswordHashLimits.scryptMemoryBytes
        else { throw PasswordHashError(.parametersOutOfBounds, "the scrypt cost is outside passkeyd's bounds") }
    }
}
