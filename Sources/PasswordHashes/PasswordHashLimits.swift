/// The bounds of an imported hash's work factors and sizes. A hash outside them is refused when it is imported
/// (`password.parametersOutOfBounds`), so that a sign-in never runs an absurd cost: each bound is above what the
/// libraries write by default (argon2-cffi, passlib, bcrypt, Django, Firebase) and below what would let one sign-in
/// take seconds or a gigabyte.
public enum PasswordHashLimits {
    /// Argon2: memory in KiB (argon2-cffi writes 65,536), passes, lanes.
    public static let argon2MemoryKiB = 8...262_144
    public static let argon2Iterations = 1...10
    public static let argon2Parallelism = 1...16
    /// scrypt: log2 of N, r, p, and its memory (128 · N · r bytes) at most 256 MiB.
    public static let scryptCostLog2 = 1...20
    public static let scryptBlockSize = 1...32
    public static let scryptParallelism = 1...16
    public static let scryptMemoryBytes = 256 << 20
    /// PBKDF2 rounds (Django 5 writes 870,000; passlib 29,000).
    public static let pbkdf2Iterations = 1_000...2_000_000
    /// bcrypt's cost, log2 of its rounds (libraries write 10 to 12).
    public static let bcryptCost = 4...15
    /// Salts and derived hashes, in bytes.
    public static let saltBytes = 4...64
    public static let hashBytes = 16...64
    /// The longest stored hash text.
    public static let maximumEncodedLength = 512
    /// The longest password verified (bcrypt reads 72 bytes; a longer one is refused before any work).
    public static let maximumPasswordBytes = 1_024
}
