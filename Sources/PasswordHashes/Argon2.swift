import CArgon2

/// Argon2 (RFC 9106) through Debian's libargon2, the reference implementation.
enum Argon2 {
    static func hash(
        password: [UInt8],
        salt: [UInt8],
        variant: PasswordHash.Argon2Variant,
        version: Int,
        memoryKiB: Int,
        iterations: Int,
        parallelism: Int,
        length: Int
    ) throws(PasswordHashError) -> [UInt8] {
        let type: argon2_type =
            switch variant {
            case .argon2d: Argon2_d
            case .argon2i: Argon2_i
            case .argon2id: Argon2_id
            }
        var output = [UInt8](repeating: 0, count: length)
        let status = output.withUnsafeMutableBytes { out in
            argon2_hash(
                UInt32(iterations),
                UInt32(memoryKiB),
                UInt32(parallelism),
                password,
                password.count,
                salt,
                salt.count,
                out.baseAddress,
                out.count,
                nil,
                0,
                type,
                UInt32(version)
            )
        }
        guard status == ARGON2_OK.rawValue else {
            throw PasswordHashError(.internalFailure, "Argon2 failed: \(String(cString: argon2_error_message(status)))")
        }
        return output
    }
}
