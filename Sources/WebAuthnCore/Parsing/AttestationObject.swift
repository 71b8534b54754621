import CBOR

/// The attestation object (WebAuthn §6.5.4), decoded strictly: one CBOR map of exactly three text keys,
///
///     fmt       text    the attestation statement format identifier (§8), matched case-sensitively
///     attStmt   map     the format's statement (an array for `compound`, §8.9)
///     authData  bytes   the authenticator data (§6.1), with attested credential data (§6.5.1)
///
/// in any order (authenticators do not all write the CTAP2 canonical order).
public struct AttestationObject: Sendable {
    public let format: String
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData

    public init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do {
            value = try CBORDecoder().decode(bytes)
        } catch {
            throw WebAuthnError(.attestationObjectMalformed, "attestation object is not one well-formed CBOR item: \(error.reason)")
        }
        guard let entries = value.mapValue else {
            throw WebAuthnError(.attestationObjectMalformed, "attestation object is not a CBOR map")
        }
        // §6.5.4 fmt: text.
        guard let format = value["fmt"]?.textValue else {
            throw WebAuthnError(.missingFormat, "attestation object has no text fmt")
        }
        // §6.5.4: attStmt is a map, except for the compound format (§8.9), whose attStmt is an array of statements.
        guard let statement = value["attStmt"],
            statement.mapValue != nil || (format == AttestationFormat.compound.rawValue && statement.arrayValue != nil)
        else {
            throw WebAuthnError(.missingStatement, "attestation object has no attStmt map (or array, for compound)")
        }
        // §6.5.4 authData: bytes.
        guard let authenticatorDataBytes = value["authData"]?.bytesValue else {
            throw WebAuthnError(.missingAuthenticatorData, "attestation object has no authData byte string")
        }
        guard entries.count == 3 else {
            throw WebAuthnError(.attestationObjectMalformed, "attestation object must hold exactly fmt, attStmt and authData")
        }
        self.format = format
        self.statement = statement
        authenticatorData = try AuthenticatorData(bytes: authenticatorDataBytes)
    }
}
