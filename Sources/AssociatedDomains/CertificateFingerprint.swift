import ConfigurationReading
import CryptoCore

/// The SHA-256 fingerprint of an Android app's signing certificate: 32 bytes, written in a configuration as 64 hex
/// digits with or without a colon between bytes, in any case. Published in `assetlinks.json` as Google writes it
/// (upper case, colon-separated) and, as an origin, `android:apk-key-hash:` + the unpadded base64url of the same
/// bytes (what Credential Manager puts in `clientDataJSON.origin`).
public struct CertificateFingerprint: Sendable, Hashable {
    /// The prefix of an Android app's origin.
    public static let originPrefix = "android:apk-key-hash:"

    let bytes: [UInt8]

    /// Nil unless `text` is 32 bytes as `AB:CD:…` (32 pairs) or `abcd…` (64 digits), any case, nothing else.
    init?(_ text: String) {
        let digits: [UInt8]
        let utf8 = Array(text.utf8)
        if utf8.count == 95 {
            // 32 pairs and 31 colons: every third character is a colon.
            guard utf8.enumerated().allSatisfy({ index, byte in (index % 3 == 2) == (byte == UInt8(ascii: ":")) }) else { return nil }
            digits = utf8.filter { $0 != UInt8(ascii: ":") }
        } else if utf8.count == 64 {
            digits = utf8
        } else {
            return nil
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = 0
        while index < digits.count {
            guard let high = Self.value(of: digits[index]), let low = Self.value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.bytes = bytes
    }

    /// Nil unless `origin` is `android:apk-key-hash:` and the unpadded base64url of exactly 32 bytes.
    public init?(origin: String) {
        guard origin.hasPrefix(Self.originPrefix), let bytes = Base64URL.decode(String(origin.dropFirst(Self.originPrefix.count))),
            bytes.count == 32
        else { return nil }
        self.bytes = bytes
    }

    /// Each of `texts` as a fingerprint; the first that is not one is refused, naming `key`.
    static func parse(_ texts: [String], key: String) throws(ConfigurationError) -> [CertificateFingerprint] {
        var fingerprints: [CertificateFingerprint] = []
        for text in texts {
            guard let fingerprint = CertificateFingerprint(text) else {
                throw ConfigurationError(
                    .invalidValue,
                    key: key,
                    "\(text.prefix(100)) is not a SHA-256 fingerprint (32 bytes: 64 hex digits, with or without a colon between bytes)"
                )
            }
            fingerprints.append(fingerprint)
        }
        return fingerprints
    }

    /// `AB:CD:…:EF`, as `assetlinks.json` publishes it.
    var published: String {
        bytes.map { Hex.encode([$0]).uppercased() }.joined(separator: ":")
    }

    /// `android:apk-key-hash:<base64url>`, the app's origin in its passkey ceremonies.
    var origin: String { Self.originPrefix + Base64URL.encode(bytes) }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
