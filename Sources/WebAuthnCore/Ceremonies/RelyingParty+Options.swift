import CryptoCore

extension RelyingParty {
    /// Creation options for `navigator.credentials.create()`: passkeys by default (resident key required,
    /// user verification preferred), the configured algorithms in order, and `credProps` requested.
    public func creationOptions(
        challenge: [UInt8],
        user: PublicKeyCredentialCreationOptionsJSON.UserEntity,
        excludeCredentials: [PublicKeyCredentialDescriptorJSON],
        residentKey: String = "required",
        userVerification: UserVerificationRequirement = .preferred,
        attestation: String = "none",
        hints: [String] = [],
        timeoutMilliseconds: Int = 300_000
    ) -> PublicKeyCredentialCreationOptionsJSON {
        PublicKeyCredentialCreationOptionsJSON(
            rp: .init(id: id, name: name),
            user: user,
            challenge: Base64URL.encode(challenge),
            pubKeyCredParams: algorithms.map { .init(type: "public-key", alg: $0.rawValue) },
            timeout: timeoutMilliseconds,
            excludeCredentials: excludeCredentials,
            authenticatorSelection: .init(
                authenticatorAttachment: nil,
                residentKey: residentKey,
                requireResidentKey: residentKey == "required",
                userVerification: userVerification.rawValue
            ),
            hints: hints,
            attestation: attestation,
            extensions: .init(credProps: true)
        )
    }

    /// Request options for `navigator.credentials.get()`; empty `allowCredentials` for discoverable (autofill) sign-in.
    public func requestOptions(
        challenge: [UInt8],
        allowCredentials: [PublicKeyCredentialDescriptorJSON],
        userVerification: UserVerificationRequirement = .preferred,
        hints: [String] = [],
        timeoutMilliseconds: Int = 300_000
    ) -> PublicKeyCredentialRequestOptionsJSON {
        PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URL.encode(challenge),
            timeout: timeoutMilliseconds,
            rpId: id,
            allowCredentials: allowCredentials,
            userVerification: userVerification.rawValue,
            hints: hints
        )
    }
}
