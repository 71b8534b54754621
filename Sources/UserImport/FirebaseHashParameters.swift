/// A Firebase project's password hash parameters, named as the Firebase console shows them (Authentication → Users →
/// ⋮ → Password hash parameters): `base64_signer_key`, `base64_salt_separator`, `rounds`, `mem_cost`. With them, the
/// Firebase import brings password users with their hashes (`PasswordHash.firebaseScrypt`).
public struct FirebaseHashParameters: Sendable, Equatable {
    public var signerKey: String
    public var saltSeparator: String
    public var rounds: Int
    public var memoryCost: Int

    public init(signerKey: String, saltSeparator: String, rounds: Int, memoryCost: Int) {
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
    }

    /// The four values of a request or a command line (each nil when absent): none (no password users imported) or
    /// all (`invalid` naming the first missing or malformed one otherwise).
    public static func given(
        signerKey: String?,
        saltSeparator: String?,
        rounds: String?,
        memoryCost: String?
    ) throws(UserImportError) -> FirebaseHashParameters? {
        if signerKey == nil, saltSeparator == nil, rounds == nil, memoryCost == nil { return nil }
        guard let signerKey, !signerKey.isEmpty else { throw UserImportError(.invalid, member: "base64_signer_key") }
        guard let saltSeparator else { throw UserImportError(.invalid, member: "base64_salt_separator") }
        guard let rounds = rounds.flatMap({ Int($0) }) else { throw UserImportError(.invalid, member: "rounds") }
        guard let memoryCost = memoryCost.flatMap({ Int($0) }) else { throw UserImportError(.invalid, member: "mem_cost") }
        return FirebaseHashParameters(signerKey: signerKey, saltSeparator: saltSeparator, rounds: rounds, memoryCost: memoryCost)
    }
}
