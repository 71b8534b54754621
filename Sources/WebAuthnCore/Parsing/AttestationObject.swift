import CBOR

/// The attestation object (WebAuthn §6.5.4): `fmt`, `attStmt` and `authData`, decoded strictly.
public struct AttestationObject: Sendable {
    public let format: String
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData

    public init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do {
            value = try CBORDecoder().decode(bytes)
        } catch {
            throw WebAuthnError("attestationObject.malformed", "attestation object is not one well-formed CBOR item: \(error.reason)")
        }
        guard let entries = value.mapValue else {
            throw WebAuthnError("attestationObject.malformed", "attestation object is not a CBOR map")
        }
        guard let format = value["fmt"]?.textValue else {
            throw WebAuthnError("attestationObject.missingFormat", "attestation object has no text fmt")
        }
        // §6.5.4: attStmt is a map, except for the compound format (§8.9), whose attStmt is an array of statements.
        guard let statement = value["attStmt"],
            statement.mapValue != nil || (format == AttestationFormat.compound.rawValue && statement.arrayValue != nil)
        else {
            throw WebAuthnError("attestationObject.missingStatement", "attestation object has no attStmt map (or array, for compound)")
        }
        guard let authenticatorDataBytes = value["authData"]?.bytesValue else {
            throw WebAuthnError("attestationObject.missingAuthenticatorData", "attestation object has no authData byte string")
        }
        guard entries.count == 3 else {
            throw WebAuthnError("attestationObject.malformed", "attestation object must hold exactly fmt, attStmt and authData")
        }
        self.format = format
        self.statement = statement
        authenticatorData = try AuthenticatorData(bytes: authenticatorDataBytes)
    }
}
