import CryptoCore

/// The Android Keystore attestation extension (OID 1.3.6.1.4.1.11129.2.1.17), reduced to what WebAuthn §8.4
/// checks, read from the certificate extension's DER with `ASN1Element` (OpenSSL's DER reader).
///
/// ```
/// KeyDescription ::= SEQUENCE {
///     attestationVersion INTEGER, attestationSecurityLevel ENUMERATED, keymasterVersion INTEGER,
///     keymasterSecurityLevel ENUMERATED, attestationChallenge OCTET STRING, uniqueId OCTET STRING,
///     softwareEnforced AuthorizationList, teeEnforced AuthorizationList, ... }
/// ```
struct AndroidKeyDescription: Equatable {
    /// An AuthorizationList: a SEQUENCE of optional fields, each an EXPLICIT context-specific tag.
    struct AuthorizationList: Equatable {
        /// purpose [1] EXPLICIT SET OF INTEGER; nil when absent.
        var purposes: [Int64]?
        /// origin [702] EXPLICIT INTEGER; nil when absent.
        var origin: Int64?
        /// True when allApplications [600] EXPLICIT NULL is present.
        var hasAllApplications: Bool
    }

    static let extensionOID = "1.3.6.1.4.1.11129.2.1.17"
    static let purposeTag = 1
    static let allApplicationsTag = 600
    static let originTag = 702

    var attestationChallenge: [UInt8]
    var softwareEnforced: AuthorizationList
    var teeEnforced: AuthorizationList

    init(attestationChallenge: [UInt8], softwareEnforced: AuthorizationList, teeEnforced: AuthorizationList) {
        self.attestationChallenge = attestationChallenge
        self.softwareEnforced = softwareEnforced
        self.teeEnforced = teeEnforced
    }

    /// Reads the extension of an attestation certificate; a certificate without it fails.
    init(certificate: X509Certificate) throws(WebAuthnError) {
        guard let (_, value) = certificate.extensionValue(Self.extensionOID) else {
            throw WebAuthnError(.androidKeyDescriptionMissing, "credential certificate has no Android key attestation extension")
        }
        try self.init(der: value)
    }

    /// Reads the extension value (the contents of the extension's OCTET STRING).
    init(der: [UInt8]) throws(WebAuthnError) {
        do {
            let sequence = try ASN1Element.single(der)
            guard sequence.isUniversal(16) else { throw Self.malformed("KeyDescription is not a SEQUENCE") }
            let fields = try sequence.children()
            guard fields.count >= 8 else { throw Self.malformed("KeyDescription has fewer than eight fields") }
            guard fields[4].isUniversal(4), !fields[4].isConstructed else {
                throw Self.malformed("attestationChallenge is not an OCTET STRING")
            }
            attestationChallenge = fields[4].contents
            softwareEnforced = try Self.authorizationList(fields[6])
            teeEnforced = try Self.authorizationList(fields[7])
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw Self.malformed("KeyDescription is not valid DER")
        }
    }

    private static func authorizationList(_ element: ASN1Element) throws -> AuthorizationList {
        guard element.isUniversal(16) else { throw malformed("AuthorizationList is not a SEQUENCE") }
        var list = AuthorizationList(purposes: nil, origin: nil, hasAllApplications: false)
        for field in try element.children() where field.tagClass == .contextSpecific {
            switch field.tag {
            case purposeTag:
                guard let set = try field.children().first, set.isUniversal(17) else { throw malformed("purpose is not a SET") }
                list.purposes = try set.children().map { member in
                    guard let value = member.integerValue else { throw malformed("purpose holds a non-INTEGER") }
                    return value
                }
            case originTag:
                guard let value = try field.children().first?.integerValue else { throw malformed("origin is not an INTEGER") }
                list.origin = value
            case allApplicationsTag:
                list.hasAllApplications = true
            default:
                continue
            }
        }
        return list
    }

    private static func malformed(_ reason: String) -> WebAuthnError {
        WebAuthnError(.androidKeyDescriptionMalformed, reason)
    }
}

private extension ASN1Element {
    /// True for a universal-class element with this tag number.
    func isUniversal(_ number: Int) -> Bool { tagClass == .universal && tag == number }
}
