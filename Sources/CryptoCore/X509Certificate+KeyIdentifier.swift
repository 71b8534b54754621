import COpenSSL

extension X509Certificate {
    /// The key identifier of RFC 5280 §4.2.1.2 method 1 — "the 160-bit SHA-1 hash of the value of the BIT STRING
    /// subjectPublicKey (excluding the tag, length, and number of unused bits)" — as lowercase hex. FIDO metadata
    /// names authenticators without an AAGUID by this value (`attestationCertificateKeyIdentifiers`).
    public var subjectPublicKeyIdentifier: String {
        guard let bits = X509_get0_pubkey_bitstr(certificate), let data = ASN1_STRING_get0_data(bits) else { return "" }
        let subjectPublicKey = Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(bits))))
        return Hex.encode(DigestAlgorithm.sha1.hash(subjectPublicKey))
    }
}
