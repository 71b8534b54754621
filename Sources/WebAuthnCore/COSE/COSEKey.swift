import CBOR
import CryptoCore

/// A credential public key in COSE_Key form (RFC 9052 §7, RFC 9053), validated and turned into an OpenSSL key.
///
/// The credentialPublicKey of attested credential data (WebAuthn §6.5.1, examples in §6.5.1.1) is one CBOR map with
/// integer labels:
///
///     label  EC2 (kty 2)    OKP (kty 1)    RSA (kty 3)
///     1      kty            kty            kty          key type (RFC 9052 §7.1)
///     3      alg            alg            alg          COSEAlgorithmIdentifier, required by §6.5.1
///     -1     crv            crv            n            curve (1 P-256, 2 P-384, 3 P-521; 6 Ed25519, 7 Ed448) / modulus
///     -2     x              x              e            x-coordinate / public key / exponent
///     -3     y              —              d            y-coordinate / RSA private exponent (refused)
///     -4     d              d              —            EC2/OKP private key (refused)
///
/// Parse once per stored credential and keep it: the OpenSSL key inside is immutable and thread-safe.
public struct COSEKey: Sendable {
    /// COSE key types (RFC 9053 §7).
    public enum KeyType: Int, Sendable {
        case okp = 1
        case ec2 = 2
        case rsa = 3
    }

    public let keyType: KeyType
    public let algorithm: COSEAlgorithm
    public let publicKey: PublicKey
    /// The CBOR bytes the key was read from (what a credential record stores).
    public let encoded: [UInt8]

    /// Decodes and validates a COSE_Key from its CBOR bytes.
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do {
            value = try CBORDecoder().decode(bytes)
        } catch {
            throw WebAuthnError(.coseKeyMalformed, "credential public key is not one well-formed CBOR item: \(error.reason)")
        }
        try self.init(value: value, encoded: bytes)
    }

    /// Validates an already decoded COSE_Key.
    public init(value: CBORValue, encoded: [UInt8]) throws(WebAuthnError) {
        guard let entries = value.mapValue else { throw WebAuthnError(.coseKeyMalformed, "COSE_Key is not a map") }
        var labels = Set<Int64>()
        for entry in entries {
            guard let label = entry.key.integerValue else { continue }
            labels.insert(label)
        }
        // Label 1, kty.
        guard let rawType = value[1]?.integerValue, let keyType = KeyType(rawValue: Int(rawType)) else {
            throw WebAuthnError(.unsupportedKeyType, "COSE_Key kty is missing or not OKP, EC2 or RSA")
        }
        // Label 3, alg (§6.5.1: the credential public key MUST contain it).
        guard let rawAlgorithm = value[3]?.integerValue else {
            throw WebAuthnError(.missingAlgorithm, "COSE_Key has no alg")
        }
        guard let algorithm = COSEAlgorithm(rawValue: Int(rawAlgorithm)) else {
            throw WebAuthnError(.coseKeyUnsupportedAlgorithm, "COSE algorithm \(rawAlgorithm) is not supported")
        }
        self.keyType = keyType
        self.algorithm = algorithm
        self.encoded = encoded
        do {
            switch keyType {
            case .ec2:
                // RFC 9053 §7.1.1: crv (-1), x (-2) and y (-3); the private key d (-4) must not be present in a public key.
                guard let curve = algorithm.requiredCurve else {
                    throw WebAuthnError(.coseKeyAlgorithmMismatch, "alg \(algorithm.rawValue) is not an ECDSA algorithm but kty is EC2")
                }
                guard !labels.contains(-4) else { throw WebAuthnError(.containsPrivateKey, "COSE_Key contains a private key") }
                guard let curveIdentifier = value[-1]?.integerValue, Self.ec2Curve(curveIdentifier) == curve else {
                    throw WebAuthnError(.curveMismatch, "EC2 curve does not match alg \(algorithm.rawValue)")
                }
                guard let x = value[-2]?.bytesValue, let y = value[-3]?.bytesValue else {
                    throw WebAuthnError(.coseKeyMalformed, "EC2 key needs x and y byte strings (compressed points are not accepted)")
                }
                publicKey = try PublicKey(curve: curve, x: x, y: y)
            case .okp:
                // RFC 9053 §7.2: crv (-1) and x (-2); EdDSA over Ed25519 (crv 6) or Ed448 (crv 7); no private key d (-4).
                guard !labels.contains(-4) else { throw WebAuthnError(.containsPrivateKey, "COSE_Key contains a private key") }
                guard let curveIdentifier = value[-1]?.integerValue, let x = value[-2]?.bytesValue else {
                    throw WebAuthnError(.coseKeyMalformed, "OKP key needs crv and x")
                }
                switch (algorithm, curveIdentifier) {
                case (.eddsa, 6), (.ed25519, 6): publicKey = try PublicKey(edwards: .ed25519, raw: x)
                case (.eddsa, 7), (.ed448, 7): publicKey = try PublicKey(edwards: .ed448, raw: x)
                default: throw WebAuthnError(.curveMismatch, "OKP curve \(curveIdentifier) does not match alg \(algorithm.rawValue)")
                }
            case .rsa:
                // RFC 8230 §4: n (-1) and e (-2), no private exponent d (-3); passkeyd requires a modulus of at least 2048 bits.
                guard [COSEAlgorithm.rs256, .rs384, .rs512, .ps256, .ps384, .ps512, .rs1].contains(algorithm) else {
                    throw WebAuthnError(.coseKeyAlgorithmMismatch, "alg \(algorithm.rawValue) is not an RSA algorithm but kty is RSA")
                }
                guard !labels.contains(-3) else { throw WebAuthnError(.containsPrivateKey, "COSE_Key contains a private key") }
                guard let modulus = value[-1]?.bytesValue, let exponent = value[-2]?.bytesValue else {
                    throw WebAuthnError(.coseKeyMalformed, "RSA key needs n and e")
                }
                let key = try PublicKey(modulus: modulus, exponent: exponent)
                guard key.bits >= 2048 else { throw WebAuthnError(.weakKey, "RSA modulus is \(key.bits) bits; at least 2048 are required") }
                publicKey = key
            }
        } catch let error as WebAuthnError {
            throw error
        } catch let error as CryptoError {
            throw WebAuthnError(.coseKeyInvalidKey, error.reason)
        } catch {
            throw WebAuthnError(.coseKeyInvalidKey, "key could not be built")
        }
    }

    private static func ec2Curve(_ identifier: Int64) -> EllipticCurve? {
        switch identifier {
        case 1: .p256
        case 2: .p384
        case 3: .p521
        default: nil
        }
    }

    /// Verifies a WebAuthn signature made with this key's algorithm.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        publicKey.verify(signature: signature, message: message, algorithm: algorithm.signatureAlgorithm(for: publicKey))
    }

    /// Verifies a signature over `first || second` (authenticator data and client data hash) without joining them
    /// first when the scheme hashes before signing.
    public func verify(signature: [UInt8], over first: [UInt8], _ second: [UInt8]) -> Bool {
        publicKey.verify(signature: signature, over: first, second, algorithm: algorithm.signatureAlgorithm(for: publicKey))
    }
}
