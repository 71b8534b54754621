import Foundation

/// A UUID's canonical text (`8-4-4-4-12` hex digits), as the stores keep an account's `appAccountToken` and the API
/// shows it, read and written here instead of through Foundation's `uuid_parse` and `uuid_unparse` (`sscanf` and
/// `snprintf`, 1.0 % of a sign-in's server CPU in a profile: every sign-in reads its account and answers with its token).
extension UUID {
    private static let lowercaseDigits = Array("0123456789abcdef".utf8)

    /// The canonical text in lowercase, what the stores write and the API shows.
    public var lowercaseText: String {
        withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                var length = 0
                for (position, byte) in bytes.enumerated() {
                    if position == 4 || position == 6 || position == 8 || position == 10 {
                        text[length] = UInt8(ascii: "-")
                        length += 1
                    }
                    text[length] = Self.lowercaseDigits[Int(byte >> 4)]
                    text[length + 1] = Self.lowercaseDigits[Int(byte & 0x0F)]
                    length += 2
                }
                return length
            }
        }
    }

    /// The UUID whose canonical text is `text`, in either case; nil for anything else (where `UUID(uuidString:)`, through
    /// `sscanf`, also reads a space before a digit).
    public init?(canonicalText text: String) {
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let isCanonical = withUnsafeMutableBytes(of: &value) { bytes -> Bool in
            var position = 0
            var digits = 0
            for character in text.utf8 {
                guard position < 36 else { return false }
                defer { position += 1 }
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard character == UInt8(ascii: "-") else { return false }
                    continue
                }
                guard let digit = Self.digitValue(character) else { return false }
                if digits % 2 == 0 { bytes[digits / 2] = digit << 4 } else { bytes[digits / 2] |= digit }
                digits += 1
            }
            return position == 36
        }
        guard isCanonical else { return nil }
        self.init(uuid: value)
    }

    private static func digitValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
