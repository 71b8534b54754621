import CryptoCore
import Foundation

/// Reads a stored password hash's text (the formats `PasswordHash` lists): strict about its shape, bounded before
/// anything is decoded, and every number and size checked by `PasswordHash` against `PasswordHashLimits`.
enum PasswordHashParser {
    static func parse(_ text: String) throws(PasswordHashError) -> PasswordHash {
        guard text.utf8.count <= PasswordHashLimits.maximumEncodedLength else {
            throw PasswordHashError(.parametersOutOfBounds, "a hash of \(text.utf8.count) bytes is longer than any format passkeyd reads")
        }
        // Every format is printable ASCII.
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw PasswordHashError(.malformed, "a hash is printable ASCII without spaces")
        }
        if text.hasPrefix("$2") { return try bcrypt(text) }
        if text.hasPrefix("pbkdf2_sha256$") { return try django(text) }
        // Django's Argon2 hasher stores the PHC string after "argon2".
        if text.hasPrefix("argon2$argon2") { return try phc(String(text.dropFirst("argon2".count)), encoded: text) }
        if text.hasPrefix("$") { return try phc(text, encoded: text) }
        if let name = text.split(separator: "$").first, ["pbkdf2_sha1", "bcrypt_sha256", "bcrypt", "sha1", "md5", "crypt"].contains(name) {
            throw PasswordHashError(.unsupportedAlgorithm, "Django's \(name) hashes are not verified")
        }
        throw PasswordHashError(.malformed, "not a PHC string, a bcrypt hash or a Django hash")
    }

    /// `$2a$`, `$2b$` or `$2y$`, a two-digit cost, 22 characters of salt and 31 of hash in bcrypt's alphabet.
    private static func bcrypt(_ text: String) throws(PasswordHashError) -> PasswordHash {
        let bytes = Array(text.utf8)
        guard bytes.count == 60, ["$2a$", "$2b$", "$2y$"].contains(String(decoding: bytes[0..<4], as: UTF8.self)) else {
            if text.hasPrefix("$2$") || text.hasPrefix("$2x$") {
                throw PasswordHashError(.unsupportedAlgorithm, "bcrypt's $2$ and $2x$ are not verified")
            }
            throw PasswordHashError(.malformed, "a bcrypt hash is $2a$, $2b$ or $2y$, a cost and 53 characters")
        }
        guard bytes[4..<6].allSatisfy({ (0x30...0x39).contains($0) }), let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)),
            bytes[6] == UInt8(ascii: "$"),
            bytes[7...].allSatisfy({ bcryptAlphabet.contains($0) })
        else { throw PasswordHashError(.malformed, "a bcrypt hash is $2a$, $2b$ or $2y$, a cost and 53 characters") }
        return try PasswordHash(algorithm: .bcrypt(cost: cost), salt: [], hash: [], encoded: text)
    }

    private static let bcryptAlphabet = Set(Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8))

    /// Django's `pbkdf2_sha256$<rounds>$<salt>$<base64 hash>`: the salt is used as its UTF-8 text.
    private static func django(_ text: String) throws(PasswordHashError) -> PasswordHash {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, let rounds = integer(parts[1]), !parts[2].isEmpty, let hash = base64(parts[3], padded: true) else {
            throw PasswordHashError(.malformed, "a Django hash is pbkdf2_sha256$rounds$salt$hash")
        }
        return try PasswordHash(algorithm: .pbkdf2(digest: .sha256, iterations: rounds), salt: Array(parts[2].utf8), hash: hash, encoded: text)
    }

    /// A PHC string (`$id[$v=…][$params]$salt$hash`): Argon2, passlib's scrypt and PBKDF2, passkeyd's Firebase form.
    private static func phc(_ text: String, encoded: String) throws(PasswordHashError) -> PasswordHash {
        var parts = text.split(separator: "$", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard let identifier = parts.first, !identifier.isEmpty else { throw PasswordHashError(.malformed, "a PHC string without an algorithm") }
        parts.removeFirst()
        switch identifier {
        case "argon2id", "argon2i", "argon2d":
            var version = 0x10
            if parts.first?.hasPrefix("v=") == true {
                guard let value = integer(String(parts.removeFirst().dropFirst(2))) else { throw PasswordHashError(.malformed, "an Argon2 version") }
                version = value
            }
            let (salt, hash) = try saltAndHash(parts, count: 3, alphabet: .standard)
            let values = try parameters(parts[0], names: ["m", "t", "p"])
            return try PasswordHash(
                algorithm: .argon2(
                    variant: PasswordHash.Argon2Variant(rawValue: identifier)!,
                    version: version,
                    memoryKiB: values.numbers["m"]!,
                    iterations: values.numbers["t"]!,
                    parallelism: values.numbers["p"]!
                ),
                salt: salt,
                hash: hash,
                encoded: encoded
            )
        case "scrypt":
            let (salt, hash) = try saltAndHash(parts, count: 3, alphabet: .standard)
            let values = try parameters(parts[0], names: ["ln", "r", "p"])
            return try PasswordHash(
                algorithm: .scrypt(costLog2: values.numbers["ln"]!, blockSize: values.numbers["r"]!, parallelism: values.numbers["p"]!),
                salt: salt,
                hash: hash,
                encoded: encoded
            )
        case "pbkdf2-sha256", "pbkdf2-sha512":
            let (salt, hash) = try saltAndHash(parts, count: 3, alphabet: .passlib)
            guard let rounds = integer(parts[0]) else { throw PasswordHashError(.malformed, "passlib's PBKDF2 rounds") }
            let digest: PasswordKeyDerivation.Digest = identifier == "pbkdf2-sha256" ? .sha256 : .sha512
            return try PasswordHash(algorithm: .pbkdf2(digest: digest, iterations: rounds), salt: salt, hash: hash, encoded: encoded)
        case "firebase-scrypt":
            let (salt, hash) = try saltAndHash(parts, count: 3, alphabet: .standard)
            let values = try parameters(parts[0], names: ["ln", "r"], bytes: ["sep", "key"])
            guard let separator = base64(values.bytes["sep"]!, padded: false), let key = base64(values.bytes["key"]!, padded: false), !key.isEmpty
            else { throw PasswordHashError(.malformed, "the Firebase signer key or separator") }
            return try PasswordHash(
                algorithm: .firebaseScrypt(
                    costLog2: values.numbers["ln"]!,
                    blockSize: values.numbers["r"]!,
                    saltSeparator: separator,
                    signerKey: key
                ),
                salt: salt,
                hash: hash,
                encoded: encoded
            )
        default:
            throw PasswordHashError(.unsupportedAlgorithm, "\(identifier.prefix(32)) hashes are not verified")
        }
    }

    enum Alphabet {
        /// RFC 4648 base64 without padding, as the PHC format has it.
        case standard
        /// passlib's: `.` for `+`.
        case passlib
    }

    /// The last two of `count` parts, decoded.
    private static func saltAndHash(_ parts: [String], count: Int, alphabet: Alphabet) throws(PasswordHashError) -> ([UInt8], [UInt8]) {
        guard parts.count == count else { throw PasswordHashError(.malformed, "a PHC string has its parameters, a salt and a hash") }
        let decode = { (text: String) -> [UInt8]? in
            base64(alphabet == .passlib ? text.replacingOccurrences(of: ".", with: "+") : text, padded: false)
        }
        guard let salt = decode(parts[count - 2]), let hash = decode(parts[count - 1]) else {
            throw PasswordHashError(.malformed, "a PHC salt or hash is not base64")
        }
        return (salt, hash)
    }

    /// `name=value` pairs separated by commas: each of `names` once as a decimal number, each of `bytes` once as text,
    /// nothing else.
    private static func parameters(
        _ text: String,
        names: Set<String>,
        bytes: Set<String> = []
    ) throws(PasswordHashError) -> (numbers: [String: Int], bytes: [String: String]) {
        var numbers: [String: Int] = [:]
        var texts: [String: String] = [:]
        for pair in text.split(separator: ",", omittingEmptySubsequences: false) {
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard halves.count == 2, numbers[halves[0]] == nil, texts[halves[0]] == nil else {
                throw PasswordHashError(.malformed, "PHC parameters are name=value pairs, each once")
            }
            if names.contains(halves[0]), let value = integer(halves[1]) {
                numbers[halves[0]] = value
            } else if bytes.contains(halves[0]) {
                texts[halves[0]] = halves[1]
            } else {
                throw PasswordHashError(.malformed, "an unknown or malformed PHC parameter")
            }
        }
        guard Set(numbers.keys) == names, Set(texts.keys) == bytes else { throw PasswordHashError(.malformed, "a PHC parameter is missing") }
        return (numbers, texts)
    }

    /// A decimal number of 1 to 9 digits without a sign or leading zero (but "0").
    static func integer(_ text: String) -> Int? {
        guard (1...9).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), text == "0" || !text.hasPrefix("0")
        else { return nil }
        return Int(text)
    }

    /// RFC 4648 base64 (standard alphabet); with `padded`, padding is allowed, else it is refused.
    static func base64(_ text: String, padded: Bool) -> [UInt8]? {
        guard text.utf8.count <= PasswordHashLimits.maximumEncodedLength else { return nil }
        if !padded && text.contains("=") { return nil }
        let body = text.hasSuffix("=") ? text : text + String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        return Data(base64Encoded: body).map(Array.init)
    }

    /// Base64 without padding, as the PHC format writes it.
    static func phcBase64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }
}
extension PasswordHashParser.Alphabet: Equatable {}
