/// What the relying party expects of an identity token's `nonce` claim.
public enum NonceExpectation: Sendable, Equatable {
    /// The raw nonce the client generated: the token's `nonce` must equal the lowercase hex SHA-256 of its UTF-8
    /// bytes, which is what Apple's sample code sends as the request nonce. A token without a nonce is refused unless
    /// it carries `nonce_supported: false`.
    case raw(String)
    /// No nonce was used: a token without one is accepted, and a present one is not checked.
    case optional
}
