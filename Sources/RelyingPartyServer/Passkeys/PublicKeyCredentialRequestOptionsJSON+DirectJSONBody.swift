import CryptoCore
import HTTPEdge
import JSON
import WebAuthnCore

/// The options of every sign-in ceremony, written without Foundation's encoder (`DirectJSONBody`).
extension PublicKeyCredentialRequestOptionsJSON: DirectJSONBody {
    package func write(to object: inout JSONObjectWriter) {
        object.add("allowCredentials", objects: allowCredentials) { descriptor, credential in
            descriptor.add("id", credential.id)
            if let transports = credential.transports { descriptor.add("transports", transports) }
            descriptor.add("type", credential.type)
        }
        object.add("challenge", challenge)
        object.add("hints", hints)
        object.add("rpId", rpId)
        object.add("timeout", Int64(timeout))
        object.add("userVerification", userVerification)
    }
}
