import CBOR
import CryptoCore
import TestSupport
import Testing
import WebAuthnCore

@Suite("RFC 9052/9053 COSE_Key credential public keys")
struct COSEKeyTests {
    static func code(_ bytes: [UInt8]) -> WebAuthnError.Code? {
        CeremonyFixture.failureCode { _ = try COSEKey(bytes: bytes) }
    }

    static func code(_ entries: [(Int64, CBORValue)]) -> WebAuthnError.Code? {
        code(encode(entries))
    }

    static func encode(_ entries: [(Int64, CBORValue)]) -> [UInt8] {
        CBOREncoder.encode(.map(entries.map { CBORMapEntry(key: CBORValue($0.0), value: $0.1) }))
    }

    /// The entries of a freshly generated key of `algorithm`, to change one at a time.
    static func entries(_ algorithm: COSEAlgorithm) throws -> [(Int64, CBORValue)] {
        let map = try SoftwareCredential.generate(algorithm).coseKeyValue().mapValue ?? []
        return map.compactMap { entry in entry.key.integerValue.map { ($0, entry.value) } }
    }

    static func replacing(_ label: Int64, with value: CBORValue?, in entries: [(Int64, CBORValue)]) -> [(Int64, CBORValue)] {
        var result = entries.filter { $0.0 != label }
        if let value { result.append((label, value)) }
        return result
    }

    @Test(arguments: SoftwareCredential.supportedAlgorithms)
    func generatedKeysRoundTripAndVerify(algorithm: COSEAlgorithm) throws {
        let credential = try SoftwareCredential.generate(algorithm)
        let bytes = try credential.coseKey()
        let key = try COSEKey(bytes: bytes)
        #expect(key.algorithm == algorithm)
        #expect(key.encoded == bytes)
        #expect(key.publicKey.matches(credential.publicKey))
        let message: [UInt8] = Array("signed message".utf8)
        let signature = try credential.sign(message)
        #expect(key.verify(signature: signature, message: message))
        #expect(!key.verify(signature: signature, message: message + [0]))
    }

    @Test(arguments: [[0xFF], [0x80], [0xA1, 0x01], [0xA0, 0x00]] as [[UInt8]])
    func bytesThatAreNotOneCBORItemFail(bytes: [UInt8]) {
        #expect(Self.code(bytes) == .coseKeyMalformed)
    }

    @Test func aCBORItemThatIsNotAMapFails() {
        #expect(Self.code(CBOREncoder.encode(.array([CBORValue(1), CBORValue(2)]))) == .coseKeyMalformed)
    }

    @Test(arguments: [CBORValue?.none, CBORValue(4), CBORValue(0), .text("EC2"), CBORValue(-2)])
    func keyTypeMustBeOKPEC2OrRSA(keyType: CBORValue?) throws {
        #expect(Self.code(Self.replacing(1, with: keyType, in: try Self.entries(.es256))) == .unsupportedKeyType)
    }

    @Test(arguments: [CBORValue?.none, .text("ES256"), .bytes([0xF9])])
    func algorithmMustBePresentAsAnInteger(algorithm: CBORValue?) throws {
        #expect(Self.code(Self.replacing(3, with: algorithm, in: try Self.entries(.es256))) == .missingAlgorithm)
    }

    @Test(arguments: [-999, -6, 0, 1, -47])
    func unknownAlgorithmsFail(algorithm: Int64) throws {
        #expect(Self.code(Self.replacing(3, with: CBORValue(algorithm), in: try Self.entries(.es256))) == .coseKeyUnsupportedAlgorithm)
    }

    @Test(arguments: [(COSEAlgorithm.es256, COSEAlgorithm.rs256), (.es256, .eddsa), (.rs256, .es256), (.ps256, .eddsa)])
    func algorithmMustSuitTheKeyType(key: COSEAlgorithm, claimed: COSEAlgorithm) throws {
        let entries = Self.replacing(3, with: CBORValue(Int64(claimed.rawValue)), in: try Self.entries(key))
        #expect(Self.code(entries) == .coseKeyAlgorithmMismatch)
    }

    @Test(arguments: [(COSEAlgorithm.es256, Int64?.some(2)), (.es256, nil), (.es256, 6), (.es384, 1), (.es512, 2), (.eddsa, 1), (.eddsa, nil)])
    func curveMustMatchTheAlgorithm(algorithm: COSEAlgorithm, curve: Int64?) throws {
        let entries = Self.replacing(-1, with: curve.map { CBORValue($0) }, in: try Self.entries(algorithm))
        let expected: WebAuthnError.Code = algorithm == .eddsa && curve == nil ? .coseKeyMalformed : .curveMismatch
        #expect(Self.code(entries) == expected)
    }

    @Test func okpKeyWithAnECDSAAlgorithmFails() throws {
        #expect(Self.code(Self.replacing(3, with: CBORValue(-7), in: try Self.entries(.eddsa))) == .curveMismatch)
    }

    @Test func p256PointNotOnTheCurveFails() throws {
        var entries = try Self.entries(.es256)
        let y = try #require(entries.first { $0.0 == -3 }?.1.bytesValue)
        entries = Self.replacing(-3, with: .bytes(y.dropLast() + [y[y.count - 1] ^ 0x01]), in: entries)
        #expect(Self.code(entries) == .coseKeyInvalidKey)
    }

    @Test(arguments: [31, 33, 0])
    func coordinateOfTheWrongLengthFails(length: Int) throws {
        let entries = Self.replacing(-2, with: .bytes([UInt8](repeating: 0x11, count: length)), in: try Self.entries(.es256))
        #expect(Self.code(entries) == .coseKeyInvalidKey)
    }

    @Test(arguments: [CBORValue?.none, .boolean(true), CBORValue(1)])
    func ec2KeyNeedsYAsAByteString(y: CBORValue?) throws {
        #expect(Self.code(Self.replacing(-3, with: y, in: try Self.entries(.es256))) == .coseKeyMalformed)
    }

    @Test(arguments: [(COSEAlgorithm.es256, Int64(-4)), (.eddsa, -4), (.rs256, -3)])
    func privateKeyMustNotBePresent(algorithm: COSEAlgorithm, label: Int64) throws {
        let entries = try Self.entries(algorithm) + [(label, CBORValue.bytes([UInt8](repeating: 0x42, count: 32)))]
        #expect(Self.code(entries) == .containsPrivateKey)
    }

    @Test func rsaKeysBelow2048BitsAreRefused() throws {
        let key = try PrivateKey.generateRSA(bits: 1024).publicKey()
        let components = try key.rsaComponents()
        let entries: [(Int64, CBORValue)] = [
            (1, CBORValue(3)), (3, CBORValue(-257)), (-1, .bytes(components.modulus)), (-2, .bytes(components.exponent)),
        ]
        #expect(Self.code(entries) == .weakKey)
    }

    @Test func rsaKeyNeedsModulusAndExponent() throws {
        #expect(Self.code(Self.replacing(-2, with: nil, in: try Self.entries(.rs256))) == .coseKeyMalformed)
    }

    @Test(arguments: [31, 33, 57])
    func ed25519KeyOfTheWrongLengthFails(length: Int) throws {
        let entries = Self.replacing(-2, with: .bytes([UInt8](repeating: 0x22, count: length)), in: try Self.entries(.eddsa))
        #expect(Self.code(entries) == .coseKeyInvalidKey)
    }

    @Test func ed448CurveWithAnEd25519KeyFails() throws {
        #expect(Self.code(Self.replacing(-1, with: CBORValue(7), in: try Self.entries(.eddsa))) == .coseKeyInvalidKey)
    }

    @Test(arguments: [[0x01], [0x02], [0x01, 0x00, 0x00], [0x00]] as [[UInt8]])
    func rsaExponentMustBeUsable(exponent: [UInt8]) throws {
        #expect(Self.code(Self.replacing(-2, with: .bytes(exponent), in: try Self.entries(.rs256))) == .coseKeyInvalidKey)
    }

    @Test func zeroP256PointFails() throws {
        let zero = CBORValue.bytes([UInt8](repeating: 0, count: 32))
        #expect(Self.code(Self.replacing(-3, with: zero, in: Self.replacing(-2, with: zero, in: try Self.entries(.es256)))) == .coseKeyInvalidKey)
    }
}
