import CryptoCore
import Foundation
import Testing

/// Test certificates for the AIK requirements (WebAuthn §8.3.1), generated once with pyca/cryptography (and OpenSSL
/// for the version 1 certificate): one EC P-256 key, each certificate breaking one requirement. Standard base64 DER.
enum TPMTestCertificates {
    /// Meets every requirement: version 3, empty subject, critical SAN with the TCG attributes in one RDN, EKU, cA FALSE.
    static let valid = """
        MIIBoDCCAUegAwIBAgIUe1Cfrl2321WdPoqssZ5Ph4rGL2kwCgYIKoZIzj0EAwIwHzEdMBsGA1UEAwwUcGFzc2tleWQgdGVzdCBB\
        SUsgQ0EwIBcNMjQwMTAxMDAwMDAwWhgPMjEyNDAxMDEwMDAwMDBaMAAwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAReS3NTRvD5\
        zc1G2ine4ettirEfPlidpeIHTO+BgbbBlRcPbSZsE5/oY9LaYiJ/q4JQLRfmlwjruXlmrjGjr6Ugo34wfDAMBgNVHRMBAf8EAjAA\
        MFoGA1UdEQEB/wRQME6kTDBKMUgwFAYFZ4EFAgEMC2lkOkZGRkZGMUQwMBQGBWeBBQIDDAtpZDowMDAwMDAwMTAaBgVngQUCAgwR\
        cGFzc2tleWQgdGVzdCBUUE0wEAYDVR0lBAkwBwYFZ4EFCAMwCgYIKoZIzj0EAwIDRwAwRAIgexcsckw7a5dkPjyUXc28vEjqlIcn\
        xrMSgWnfPEYJyUECIDNvG7SWX6zNEGbgFyZ5izhGCeis/4RNP4/wh9HWFsBl
        """
    /// Subject CN set.
    static let subjectNotEmpty = """
        MIIBtTCCAVugAwIBAgIUTuvI3bx52wdw6fFo1o8BTXZpkhkwCgYIKoZIzj0EAwIwHzEdMBsGA1UEAwwUcGFzc2tleWQgdGVzdCBB\
        SUsgQ0EwIBcNMjQwMTAxMDAwMDAwWhgPMjEyNDAxMDEwMDAwMDBaMBQxEjAQBgNVBAMMCW5vdCBlbXB0eTBZMBMGByqGSM49AgEG\
        CCqGSM49AwEHA0IABF5Lc1NG8PnNzUbaKd7h622KsR8+WJ2l4gdM74GBtsGVFw9tJmwTn+hj0tpiIn+rglAtF+aXCOu5eWauMaOv\
        pSCjfjB8MAwGA1UdEwEB/wQCMAAwWgYDVR0RAQH/BFAwTqRMMEoxSDAUBgVngQUCAQwLaWQ6RkZGRkYxRDAwFAYFZ4EFAgMMC2lk\
        OjAwMDAwMDAxMBoGBWeBBQICDBFwYXNza2V5ZCB0ZXN0IFRQTTAQBgNVHSUECTAHBgVngQUIAzAKBggqhkjOPQQDAgNIADBFAiEA\
        kTH0fTnrScC4/G0DkKVZSMasaG2b6E4mWiVZRIEYRAMCIGi2jDzeBxQxoGF01eF+C0NYabHHbalmsVLoI0kK/MZN
        """
    /// No Subject Alternative Name.
    static let withoutSubjectAlternativeName = """
        MIIBQzCB66ADAgECAhQ/ifVxx0lGLyFqCeZ2ARt+rQz3ZTAKBggqhkjOPQQDAjAfMR0wGwYDVQQDDBRwYXNza2V5ZCB0ZXN0IEFJ\
        SyBDQTAgFw0yNDAxMDEwMDAwMDBaGA8yMTI0MDEwMTAwMDAwMFowADBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABF5Lc1NG8PnN\
        zUbaKd7h622KsR8+WJ2l4gdM74GBtsGVFw9tJmwTn+hj0tpiIn+rglAtF+aXCOu5eWauMaOvpSCjIjAgMAwGA1UdEwEB/wQCMAAw\
        EAYDVR0lBAkwBwYFZ4EFCAMwCgYIKoZIzj0EAwIDRwAwRAIgDUuRft81uvZaDFV28K14WAA+llDIT14DEe5E6YknwzICIGHdvTkz\
        QqDnYAyMfAcV7dMSRJV/Q1ywky02L+/NwkgG
        """
    /// Subject Alternative Name not marked critical.
    static let subjectAlternativeNameNotCritical = """
        MIIBnjCCAUSgAwIBAgIUa1GT5wDQtMjHYxKlXsXlTrmKicEwCgYIKoZIzj0EAwIwHzEdMBsGA1UEAwwUcGFzc2tleWQgdGVzdCBB\
        SUsgQ0EwIBcNMjQwMTAxMDAwMDAwWhgPMjEyNDAxMDEwMDAwMDBaMAAwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAReS3NTRvD5\
        zc1G2ine4ettirEfPlidpeIHTO+BgbbBlRcPbSZsE5/oY9LaYiJ/q4JQLRfmlwjruXlmrjGjr6Ugo3sweTAMBgNVHRMBAf8EAjAA\
        MFcGA1UdEQRQME6kTDBKMUgwFAYFZ4EFAgEMC2lkOkZGRkZGMUQwMBQGBWeBBQIDDAtpZDowMDAwMDAwMTAaBgVngQUCAgwRcGFz\
        c2tleWQgdGVzdCBUUE0wEAYDVR0lBAkwBwYFZ4EFCAMwCgYIKoZIzj0EAwIDSAAwRQIgVElbRry454wBsfkiS2+N1oxBa7f/EoYw\
        FYWNG5gldh4CIQCVZdbzNp5+nJ5DOI8HjQjADDsMpLUi42Y9w3YLqRd0Gg==
        """
    /// Subject Alternative Name without the TPM model.
    static let subjectAlternativeNameWithoutModel = """
        MIIBhjCCASugAwIBAgIUQ+nqJnfeVytWpFH7sjz1JwJ+BH4wCgYIKoZIzj0EAwIwHzEdMBsGA1UEAwwUcGFzc2tleWQgdGVzdCBB\
        SUsgQ0EwIBcNMjQwMTAxMDAwMDAwWhgPMjEyNDAxMDEwMDAwMDBaMAAwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAReS3NTRvD5\
        zc1G2ine4ettirEfPlidpeIHTO+BgbbBlRcPbSZsE5/oY9LaYiJ/q4JQLRfmlwjruXlmrjGjr6Ugo2IwYDAMBgNVHRMBAf8EAjAA\
        MD4GA1UdEQEB/wQ0MDKkMDAuMSwwFAYFZ4EFAgEMC2lkOkZGRkZGMUQwMBQGBWeBBQIDDAtpZDowMDAwMDAwMTAQBgNVHSUECTAH\
        BgVngQUIAzAKBggqhkjOPQQDAgNJADBGAiEAtxiCzf9B+8zFXG08gsdoSno0B1+w9WrybYyL/6pkDbMCIQDLvlYr4e/YSqGi7ErS\
        Uan86ayk1ScXNnpcrRTYGxVA3Q==
        """
    /// No Extended Key Usage.
    static let withoutExtendedKeyUsage = """
        MIIBjzCCATWgAwIBAgIUPBY8hmyArBns02ebfXIM8GwLZJYwCgYIKoZIzj0EAwIwHzEdMBsGA1UEAwwUcGFzc2tleWQgdGVzdCBB\
        SUsgQ0EwIBcNMjQwMTAxMDAwMDAwWhgPMjEyNDAxMDEwMDAwMDBaMAAwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAReS3NTRvD5\
        zc1G2ine4ettirEfPlidpeIHTO+BgbbBlRcPbSZsE5/oY9LaYiJ/q4JQLRfmlwjruXlmrjGjr6Ugo2wwajAMBgNVHRMBAf8EAjAA\
        MFoGA1UdEQEB/wRQME6kTDBKMUgwFAYFZ4EFAgEMC2lkOkZGRkZGMUQwMBQGBWeBBQIDDAtpZDowMDAwMDAwMTAaBgVngQUCAgwR\
        cGFzc2tleWQgdGVzdCBUUE0wCgYIKoZIzj0EAwIDSAAwRQIgf+egy3EYGL2Kl+Ye0Zb69/xJEIh8dimaRcQji61paTICIQCi8dzc\
        SN4+JitNopygDoIwvVEYHhDyTv7PnL9Vb0VZBQ==
        """
    /// Basic Constraints cA TRUE.
    static let certificateAuthority = """
        MIIBpTCCAUugAwIBAgIUcykPIe8Q/GKdxfHJVQGvScf2VZ4wCgYIKoZIzj0EAwIwHzEdMBsGA1UEAwwUcGFzc2tleWQgdGVzdCBB\
        SUsgQ0EwIBcNMjQwMTAxMDAwMDAwWhgPMjEyNDAxMDEwMDAwMDBaMAAwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAReS3NTRvD5\
        zc1G2ine4ettirEfPlidpeIHTO+BgbbBlRcPbSZsE5/oY9LaYiJ/q4JQLRfmlwjruXlmrjGjr6Ugo4GBMH8wDwYDVR0TAQH/BAUw\
        AwEB/zBaBgNVHREBAf8EUDBOpEwwSjFIMBQGBWeBBQIBDAtpZDpGRkZGRjFEMDAUBgVngQUCAwwLaWQ6MDAwMDAwMDEwGgYFZ4EF\
        AgIMEXBhc3NrZXlkIHRlc3QgVFBNMBAGA1UdJQQJMAcGBWeBBQgDMAoGCCqGSM49BAMCA0gAMEUCIQD7HGBA6apkMOEznM4d7zWW\
        F4vAtAaVU9LqoguDH7QpMQIgDt2bgjH2/6EGg4F0ZybPyjrRySQ7Tfow+J2rx5Vc6gM=
        """
    /// An X.509 version 1 certificate.
    static let versionOne = """
        MIIBFjCBvQIUPqG8TKd1VOj/kXGVYa1JlXg7KM4wCgYIKoZIzj0EAwIwDTELMAkGA1UEAwwCdjEwIBcNMjYxMTI5MTM0NDQ1WhgP\
        MjEyNjExMDUxMzQ0NDVaMA0xCzAJBgNVBAMMAnYxMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEXktzU0bw+c3NRtop3uHrbYqx\
        Hz5YnaXiB0zvgYG2wZUXD20mbBOf6GPS2mIif6uCUC0X5pcI67l5Zq4xo6+lIDAKBggqhkjOPQQDAgNIADBFAiBjF9MKaxVDZGgZ\
        +53pquw4rehN1tnBASk5L9vWhjCV9QIhAOMBgX/tZSkAPeEGi4wHdmbdtcKyjhKskVjV4T/1qNjt
        """
}

extension TPMTestCertificates {
    /// A certificate above, parsed.
    static func certificate(_ base64: String) throws -> X509Certificate {
        try X509Certificate(der: Array(try #require(Data(base64Encoded: base64))))
    }

    /// A certificate above as PEM, for a case's trustAnchors.
    static func pem(_ base64: String) -> String {
        "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
    }
}
