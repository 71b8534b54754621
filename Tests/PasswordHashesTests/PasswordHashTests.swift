import CryptoCore
import Foundation
import Testing

@testable import PasswordHashes

/// Imported password hashes: every format, made by the library the previous system used (`Fixtures/hashes.json`, written
/// by `Tests/Python/passwords/make_hashes.py` with PyPI's bcrypt, argon2-cffi, passlib, Django and firebase-scrypt),
/// verifies its password and no other; every malformed, unsupported or absurd hash is refused by its code.
struct PasswordHashTests {
    struct Fixtures: Decodable {
        struct Hash: Decodable {
            let format: String
            let hash: String
            let password: String
        }
        struct Firebase: Decodable {
            let format: String
            let password: String
            let salt: String
            let passwordHash: String
            let signerKey: String
            let saltSeparator: String
            let rounds: Int
            let memCost: Int
        }
        let hashes: [Hash]
        let firebase: [Firebase]

        static let loaded: Fixtures = {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/hashes.json")
            return try! JSONDecoder().decode(Fixtures.self, from: Data(contentsOf: url))
        }()
    }

    static func wrong(_ password: String) -> [String] {
        [password + "!", String(password.dropLast()), password.uppercased() == password ? password + "a" : password.uppercased(), " " + password]
    }

    @Test(arguments: Fixtures.loaded.hashes)
    func eachLibrarysHashVerifiesItsPasswordAndNoOther(_ fixture: Fixtures.Hash) throws {
        let hash = try PasswordHash(fixture.hash)
        #expect(try hash.verify(Array(fixture.password.utf8)), "\(fixture.format)")
        for other in Self.wrong(fixture.password) where other != fixture.password {
            #expect(try !hash.verify(Array(other.utf8)), "\(fixture.format): \(other)")
        }
        #expect(hash.encoded == fixture.hash, "kept as imported")
        let twin = hash.timingTwin
        #expect(twin.algorithm == hash.algorithm && twin.hash.count == hash.hash.count)
        #expect(try !twin.verify(Array(fixture.password.utf8)), "the timing twin matches no password")
    }

    @Test(arguments: Fixtures.loaded.firebase)
    func firebasesScryptVerifiesWithTheProjectsParameters(_ fixture: Fixtures.Firebase) throws {
        let hash = try PasswordHash.firebaseScrypt(
            passwordHash: fixture.passwordHash,
            salt: fixture.salt,
            signerKey: fixture.signerKey,
            saltSeparator: fixture.saltSeparator,
            rounds: fixture.rounds,
            memoryCost: fixture.memCost
        )
        #expect(try hash.verify(Array(fixture.password.utf8)), "\(fixture.format)")
        #expect(try !hash.verify(Array((fixture.password + "x").utf8)))
        // Stored in passkeyd's form, read back as the same hash.
        #expect(hash.encoded.hasPrefix("$firebase-scrypt$ln=14,r=8,sep=Bw,key="))
        let reread = try PasswordHash(hash.encoded)
        #expect(reread == hash)
        #expect(try reread.verify(Array(fixture.password.utf8)))
        // Another project's signer key or separator: no match.
        let otherKey = try PasswordHash.firebaseScrypt(
            passwordHash: fixture.passwordHash,
            salt: fixture.salt,
            signerKey: Data(repeating: 7, count: 64).base64EncodedString(),
            saltSeparator: fixture.saltSeparator,
            rounds: fixture.rounds,
            memoryCost: fixture.memCost
        )
        #expect(try !otherKey.verify(Array(fixture.password.utf8)))
        let otherSeparator = try PasswordHash.firebaseScrypt(
            passwordHash: fixture.passwordHash,
            salt: fixture.salt,
            signerKey: fixture.signerKey,
            saltSeparator: "Bg==",
            rounds: fixture.rounds,
            memoryCost: fixture.memCost
        )
        #expect(try !otherSeparator.verify(Array(fixture.password.utf8)))
    }

    @Test func passwordsNoFormatAcceptsAreRefusedBeforeAnyWork() throws {
        let bcrypt = try PasswordHash(try #require(Fixtures.loaded.hashes.first { $0.format.hasPrefix("bcrypt $2b$") }).hash)
        #expect(try !bcrypt.verify([]), "empty")
        #expect(try !bcrypt.verify(Array("correct horse\u{0}battery staple".utf8)), "a NUL byte")
        #expect(try !bcrypt.verify([UInt8](repeating: 0x61, count: PasswordHashLimits.maximumPasswordBytes + 1)), "too long")
    }

    static let malformed = [
        "", "plain-text-password", "$", "$argon2id", "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ",
        "$argon2id$v=19$m=65536,t=3$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA", "$argon2id$v=19$m=65536,t=3,p=4,x=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=19$m=65536,m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=19$m=065536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=19$m=-1,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA", "$argon2id$v=19$m=65536,t=3,p=4$c2Fs*dHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA", "$scrypt$ln=10,r=8$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        "$pbkdf2-sha256$abc$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA", "$2b$10$short", "$2b$1a$" + String(repeating: ".", count: 53),
        "$2b$10$" + String(repeating: "!", count: 53), "pbkdf2_sha256$870000$salt", "pbkdf2_sha256$$salt$aGFzaA==",
        "pbkdf2_sha256$870000$salt$not base64", "has space$2b$", "$firebase-scrypt$ln=14,r=8$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
    ]

    @Test(arguments: malformed)
    func malformedHashesAreRefused(_ text: String) {
        #expect(throws: PasswordHashError.self) { _ = try PasswordHash(text) }
        #expect(Self.code(text) == .malformed, "\(text)")
    }

    static let unsupported = [
        "$1$saltsalt$hashhashhashhashhashha", "$5$rounds=5000$salt$hash", "$6$salt$hash", "$y$j9T$salt$hash",
        "$2x$10$" + String(repeating: ".", count: 53),
        "pbkdf2_sha1$260000$salt$aGFzaA==", "bcrypt_sha256$$2b$12$abc", "md5$salt$hash", "$md5-crypt$salt$hash",
    ]

    @Test(arguments: unsupported)
    func unsupportedAlgorithmsAreRefused(_ text: String) {
        #expect(Self.code(text) == .unsupportedAlgorithm, "\(text)")
    }

    static let absurd = [
        "$argon2id$v=19$m=1048576,t=3,p=4$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=19$m=65536,t=100,p=4$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=19$m=65536,t=3,p=64$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=18$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=19$m=65536,t=3,p=4$c2E$aGFzaGhhc2hoYXNoaGFzaA", "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0$aGFzaA",
        "$scrypt$ln=25,r=8,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA", "$scrypt$ln=18,r=16,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA",
        "$pbkdf2-sha256$10000000$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA", "$pbkdf2-sha256$10$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaA",
        "$2b$16$" + String(repeating: ".", count: 53), "$2b$03$" + String(repeating: ".", count: 53),
        "pbkdf2_sha256$99999999$salt$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA==",
        "$argon2id$v=19$m=65536,t=3,p=4$" + String(repeating: "A", count: 600),
    ]

    @Test(arguments: absurd)
    func absurdWorkFactorsAndSizesAreRefused(_ text: String) {
        #expect(Self.code(text) == .parametersOutOfBounds, "\(text)")
    }

    @Test func badFirebaseParametersAreRefused() {
        func code(_ make: () throws(PasswordHashError) -> PasswordHash) -> PasswordHashError.Code? {
            do {
                _ = try make()
                return nil
            } catch {
                return error.code
            }
        }
        let (hash, salt, key) = (
            "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==", "42xEC+ixf3L2lw==",
            "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="
        )
        #expect(
            code { () throws(PasswordHashError) in
                try .firebaseScrypt(passwordHash: hash, salt: salt, signerKey: "not base64!", saltSeparator: "Bw==", rounds: 8, memoryCost: 14)
            } == .malformed
        )
        #expect(
            code { () throws(PasswordHashError) in
                try .firebaseScrypt(passwordHash: "%%", salt: salt, signerKey: key, saltSeparator: "Bw==", rounds: 8, memoryCost: 14)
            } == .malformed
        )
        #expect(
            code { () throws(PasswordHashError) in
                try .firebaseScrypt(passwordHash: hash, salt: salt, signerKey: key, saltSeparator: "Bw==", rounds: 8, memoryCost: 30)
            } == .parametersOutOfBounds
        )
        #expect(
            code { () throws(PasswordHashError) in
                try .firebaseScrypt(passwordHash: hash, salt: salt, signerKey: key, saltSeparator: "Bw==", rounds: 0, memoryCost: 14)
            } == .parametersOutOfBounds
        )
    }

    static func code(_ text: String) -> PasswordHashError.Code? {
        do {
            _ = try PasswordHash(text)
            return nil
        } catch {
            return error.code
        }
    }
}
