import CryptoCore

/// The authenticator-data steps shared by registration (§7.1 steps 14–17) and authentication (§7.2 steps 15–18).
/// Static, with the relying party borrowed: a verifier value holding it would copy (retain and release) each of its members.
enum AuthenticatorDataVerifier {
    /// `requiresUserPresence` is false only for a conditional create (§7.1 step 15); an assertion always requires it.
    static func verify(
        _ authenticatorData: AuthenticatorData,
        requiresUserPresence: Bool,
        userVerification: UserVerificationRequirement,
        relyingParty: RelyingParty
    ) throws(WebAuthnError) {
        // §7.1 step 14 / §7.2 step 15: verify that the rpIdHash in authData is the SHA-256 hash of the RP ID expected by the RP.
        guard relyingParty.acceptedIDHashes.contains(where: { ConstantTime.equals($0, authenticatorData.rpIDHash) }) else {
            throw WebAuthnError(.relyingPartyIDHashMismatch, "rpIdHash is not the SHA-256 of the relying party ID")
        }
        // §7.1 step 15 / §7.2 step 16: verify that the UP bit of the flags is set (§7.1: unless the ceremony is a conditional create).
        if requiresUserPresence, !authenticatorData.flags.contains(.userPresent) {
            throw WebAuthnError(.userNotPresent, "the authenticator did not assert user presence")
        }
        // §7.1 step 16 / §7.2 step 17: if user verification is required for this ceremony, verify that the UV bit is set.
        if userVerification == .required, !authenticatorData.flags.contains(.userVerified) {
            throw WebAuthnError(.userNotVerified, "user verification was required but the authenticator did not verify the user")
        }
        // §7.1 step 17 / §7.2 step 18: if the BE bit of the flags is not set, verify that the BS bit is not set.
        if !authenticatorData.flags.contains(.backupEligible), authenticatorData.flags.contains(.backupState) {
            throw WebAuthnError(.backupStateWithoutEligibility, "BS is set while BE is not")
        }
    }
}
