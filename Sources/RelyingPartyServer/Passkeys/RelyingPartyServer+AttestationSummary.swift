import HTTPEdge
import WebAuthnCore

extension RelyingPartyServer {
    /// The attestation summary stored with a new credential (JSON: format, type, trust, certificates, aaguid and
    /// authenticatorName when known); `GET /me` reads the name back from it.
    static func summary(_ result: RegistrationResult) -> String {
        let trust =
            switch result.attestation.trustEvaluation {
            case .notApplicable: "notApplicable"
            case .notEvaluated: "notEvaluated"
            case .trusted(let fingerprint): "trusted:" + fingerprint
            }
        var summary = [
            "format": result.attestation.format.rawValue, "type": result.attestation.type.rawValue, "trust": trust,
            "certificates": String(result.attestation.trustPath.count), "aaguid": result.aaguidString,
        ]
        summary["authenticatorName"] = result.authenticatorName
        return String(decoding: JSONBody.encode(summary), as: UTF8.self)
    }
}
