import COpenSSL
import Foundation

/// Builds and verifies a certificate path with OpenSSL's `X509_STORE` at an injected time.
///
/// Building the path is this type's job; deciding whether the result is trusted enough is the caller's policy.
public struct CertificateChainVerifier: Sendable {
    /// Certificates accepted as the end of a path (roots, or intermediates an operator chose to trust).
    public let trustAnchors: [X509Certificate]

    public init(trustAnchors: [X509Certificate]) {
        self.trustAnchors = trustAnchors
    }

    /// Verifies that `leaf`, helped by `intermediates`, chains to one of the trust anchors and that every
    /// certificate on the path is valid at `time`. Returns the path from leaf to anchor.
    public func verify(leaf: X509Certificate, intermediates: [X509Certificate], at time: Date) throws(CryptoError) -> [X509Certificate] {
        guard !trustAnchors.isEmpty else { throw CryptoError(.chainUntrusted, "no trust anchors were given") }
        guard let store = X509_STORE_new() else { throw CryptoError(.internalFailure, "X509_STORE_new failed") }
        defer { X509_STORE_free(store) }
        for anchor in trustAnchors {
            _ = X509_STORE_add_cert(store, anchor.certificate)
        }
        ERR_clear_error()
        guard let untrusted = pk_sk_X509_new_null() else { throw CryptoError(.internalFailure, "sk_X509_new_null failed") }
        defer { pk_sk_X509_free(untrusted) }
        for certificate in intermediates {
            _ = pk_sk_X509_push(untrusted, certificate.certificate)
        }
        guard let context = X509_STORE_CTX_new() else { throw CryptoError(.internalFailure, "X509_STORE_CTX_new failed") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.certificate, untrusted) == 1 else {
            throw CryptoError(.internalFailure, "X509_STORE_CTX_init failed")
        }
        let parameters = X509_STORE_CTX_get0_param(context)
        X509_VERIFY_PARAM_set_time(parameters, time_t(time.timeIntervalSince1970.rounded(.down)))
        // An anchor may be an intermediate that the operator trusts (FIDO metadata lists them), so partial chains end there.
        X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN))
        guard X509_verify_cert(context) == 1 else {
            let error = X509_STORE_CTX_get_error(context)
            ERR_clear_error()
            let message = String(cString: X509_verify_cert_error_string(Int(error)))
            switch error {
            case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
                throw CryptoError(
                    .certificateExpired,
                    "a certificate on the path is not valid at the verification time: \(message)"
                )
            default:
                throw CryptoError(.chainUntrusted, "certificate path did not verify: \(message)")
            }
        }
        guard let chain = X509_STORE_CTX_get1_chain(context) else { return [leaf] }
        defer { pk_sk_X509_pop_free(chain) }
        var path: [X509Certificate] = []
        for index in 0..<pk_sk_X509_num(chain) {
            guard let certificate = pk_sk_X509_value(chain, index) else { continue }
            let known = ([leaf] + intermediates + trustAnchors).first { X509_cmp($0.certificate, certificate) == 0 }
            if let known { path.append(known) }
        }
        return path
    }
}
