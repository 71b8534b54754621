import CryptoCore

/// The client-data steps shared by registration (§7.1 steps 5–11) and authentication (§7.2 steps 8–14).
/// Static, with the relying party borrowed: a verifier value holding it would copy (retain and release) each of its members.
enum ClientDataVerifier {
    static func verify(_ bytes: [UInt8], types: [String], challenge: [UInt8], relyingParty: RelyingParty) throws(WebAuthnError) -> CollectedClientData
    {
        try verify(CollectedClientData(bytes: bytes), types: types, challenge: challenge, relyingParty: relyingParty)
    }

    /// The checks of `verify(_:types:challenge:relyingParty:)` on client data parsed already.
    static func verify(
        _ clientData: CollectedClientData,
        types: [String],
        challenge: [UInt8],
        relyingParty: RelyingParty
    ) throws(WebAuthnError) -> CollectedClientData {
        // §7.1 step 7 / §7.2 step 10: verify that the value of C.type is webauthn.create (webauthn.get).
        guard types.contains(clientData.type) else {
            throw WebAuthnError(.typeMismatch, "client data type is not one the ceremony expects")
        }
        // §7.1 step 8 / §7.2 step 11: verify that C.challenge equals the base64url encoding of the options' challenge.
        guard Base64URL.isEncoding(of: challenge, clientData.challenge) else {
            throw WebAuthnError(.challengeMismatch, "client data challenge is not the challenge issued for this ceremony")
        }
        // §7.1 step 9 / §7.2 step 12: verify that C.origin is an origin expected by the RP (§13.4.9).
        guard relyingParty.origins.contains(clientData.origin) else {
            throw WebAuthnError(.originMismatch, "client data origin is not one of the relying party's origins")
        }
        // §7.1 step 10 / §7.2 step 13: if C.crossOrigin is true, verify that the RP expects to be embedded cross-origin.
        if clientData.crossOrigin, !relyingParty.allowsCrossOriginEmbedding {
            throw WebAuthnError(
                .crossOriginNotAllowed,
                "the ceremony ran in a cross-origin iframe, which the relying party does not allow"
            )
        }
        // §7.1 step 11 / §7.2 step 14: if C.topOrigin is present, verify that the RP expects to be embedded and that it matches.
        if let topOrigin = clientData.topOrigin {
            guard relyingParty.allowsCrossOriginEmbedding else {
                throw WebAuthnError(
                    .crossOriginNotAllowed,
                    "the ceremony ran embedded in another site, which the relying party does not allow"
                )
            }
            guard relyingParty.topOrigins.contains(topOrigin) else {
                throw WebAuthnError(.topOriginMismatch, "client data topOrigin is not one the relying party may be embedded in")
            }
        }
        // §5.8.1: tokenBinding is reserved ("its use is not expected in Level 3") and §7.1/§7.2 have no Token Binding
        // step, so the member is ignored whatever it holds, like any other member the steps do not name.
        return clientData
    }
}
