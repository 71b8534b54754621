/// One mailbox: a plain ASCII address (`local@domain`, no quoted local parts, no comments, no internationalized
/// address) and an optional display name of any Unicode text (encoded as RFC 2047 words when not plain ASCII).
public struct MailAddress: Sendable, Equatable, Hashable {
    /// RFC 5321's limit of a path: 256 octets with the angle brackets.
    public static let maximumAddressLength = 254
    public static let maximumLocalPartLength = 64
    public static let maximumDisplayNameLength = 128

    /// The address, as given (the domain's case is kept: callers compare their own normalized forms).
    public let address: String
    public let displayName: String?

    /// Checks `address` and `displayName`; throws `mail.addressInvalid` or `mail.headerInvalid`.
    public init(_ address: String, displayName: String? = nil) throws(MailError) {
        guard Self.isValid(address) else {
            throw MailError(.addressInvalid, "not a plain ASCII local@domain address of at most \(Self.maximumAddressLength) characters")
        }
        if let displayName {
            try HeaderText.check(displayName, field: "display name", maximumLength: Self.maximumDisplayNameLength)
        }
        self.address = address
        self.displayName = displayName.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The domain part, after the `@`.
    public var domain: Substring {
        address[address.index(after: address.lastIndex(of: "@")!)...]
    }

    /// `local@domain`: a dot-atom local part (RFC 5322 atext characters, single dots between them) and a host name of
    /// letters, digits and hyphens in dot-separated labels of at most 63 characters.
    public static func isValid(_ address: String) -> Bool {
        let bytes = Array(address.utf8)
        guard bytes.count <= maximumAddressLength, let at = bytes.lastIndex(of: UInt8(ascii: "@")) else { return false }
        let local = bytes[..<at]
        let domain = bytes[(at + 1)...]
        guard !local.isEmpty, local.count <= maximumLocalPartLength, !domain.isEmpty else { return false }
        let localAtoms = local.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard localAtoms.allSatisfy({ !$0.isEmpty && $0.allSatisfy(isAtomText) }) else { return false }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.count >= 1
            && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
                    && label.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
            }
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// RFC 5322 `atext`: letters, digits and ``!#$%&'*+-/=?^_`{|}~``.
    private static func isAtomText(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || Array("!#$%&'*+-/=?^_`{|}~".utf8).contains(byte)
    }
}
