import CryptoCore

/// The one repair made to an attestation certificate: a few certificates of the first-generation "Security Key by
/// Yubico" (U2F, 2014) encode their RSA signature as a BIT STRING that claims unused bits (the unused-bits byte, 257
/// bytes from the end of the DER, just before the 256-byte signature, is not 0), which OpenSSL refuses ("invalid bit
/// string bits left"), so their chain never verifies to the Yubico U2F root. Yubico's own libraries set that byte to
/// 0 for exactly these certificates, and so does this, narrowly: only a certificate whose SHA-256 fingerprint, of the
/// DER as received, is in `fingerprints`, only that byte, only when it is not 0 and sits where the signature's BIT
/// STRING header says it must. Every other certificate, and any other difference, is left as it is (and fails as it
/// would).
enum YubicoCertificateRepair {
    /// The SHA-256 fingerprints of the affected certificates as the authenticators send them: Yubico's list, from
    /// Yubico/php-u2flib-server `src/u2flib_server/U2F.php` (`$FIXCERTS`, commit 04ceb241875e; Yubico's
    /// java-webauthn-server `CertificateParser.FIXSIG` and python-u2flib-server `FIXSIG` name the same certificates by
    /// subject, "CN=Yubico U2F EE Serial 776137165" and others). `dd574527…` is "CN=Yubico U2F EE Serial 13831167861",
    /// whose real registration is `TestVectors/u2f/yubico-u2f-ee-serial-13831167861.json`.
    static let fingerprints: Set<String> = [
        "349bca1031f8c82c4ceca38b9cebf1a69df9fb3b94eed99eb3fb9aa3822d26e8",
        "dd574527df608e47ae45fbba75a2afdd5c20fd94a02419381813cd55a2a3398f",
        "1d8764f0f7cd1352df6150045c8f638e517270e8b5dda1c63ade9c2280240cae",
        "d0edc9a91a1677435a953390865d208c55b3183c6759c9b5a7ff494c322558eb",
        "6073c436dcd064a48127ddbf6032ac1a66fd59a0c24434f070d4e564c124c897",
        "ca993121846c464d666096d35f13bf44c1b05af205f9b4a1e00cf6cc10c5e511",
    ]

    /// The BIT STRING header of a 2048-bit signature: tag 3, length 257 (the unused-bits byte and 256 bytes).
    static let signatureHeader: [UInt8] = [0x03, 0x82, 0x01, 0x01]
    static let unusedBitsOffsetFromEnd = 257

    /// `der` with the unused-bits byte of its signature set to 0 when it is one of the listed certificates and the
    /// byte is not 0; `der` unchanged otherwise.
    static func repaired(_ der: [UInt8]) -> [UInt8] {
        let index = der.count - unusedBitsOffsetFromEnd
        guard index >= signatureHeader.count, der[index] != 0, der[(index - signatureHeader.count)..<index].elementsEqual(signatureHeader),
            fingerprints.contains(Hex.encode(DigestAlgorithm.sha256.hash(der)))
        else { return der }
        var repaired = der
        repaired[index] = 0
        return repaired
    }
}
