import CXCrypt
import Foundation

/// bcrypt through libxcrypt's `crypt_rn` (re-entrant, its state on the heap, never a static buffer).
enum BCrypt {
    /// The hash text of `password` under `setting` (a whole bcrypt hash: its cost and salt are read from it).
    static func crypt(password: [UInt8], setting: String) throws(PasswordHashError) -> [UInt8] {
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer {
            // The state held the password's derived material.
            memset(data, 0, MemoryLayout<crypt_data>.size)
            data.deallocate()
        }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        let phrase = password.map { CChar(bitPattern: $0) } + [0]
        guard let result = crypt_rn(phrase, setting, data, Int32(MemoryLayout<crypt_data>.size)) else {
            throw PasswordHashError(.internalFailure, "crypt_rn refused the bcrypt setting")
        }
        return Array(String(cString: result).utf8)
    }
}
