import COpenSSL

/// One DER element (tag, class, contents) read with OpenSSL's `ASN1_get_object`, for the few WebAuthn
/// certificate extensions whose inner structure OpenSSL has no typed parser for (Apple's nonce, Android's
/// KeyDescription). Certificates themselves are parsed by OpenSSL, never here.
public struct ASN1Element: Sendable, Equatable {
    public enum TagClass: Sendable, Equatable { case universal, application, contextSpecific, privateUse }

    public let tag: Int
    public let tagClass: TagClass
    public let isConstructed: Bool
    public let contents: [UInt8]

    /// Reads every element of `bytes` in sequence; fails on truncation, indefinite lengths or garbage.
    public static func sequence(_ bytes: [UInt8]) throws(CryptoError) -> [ASN1Element] {
        var elements: [ASN1Element] = []
        var offset = 0
        while offset < bytes.count {
            let (element, length) = try read(bytes, from: offset)
            elements.append(element)
            offset += length
        }
        return elements
    }

    /// Reads exactly one element that spans all of `bytes`.
    public static func single(_ bytes: [UInt8]) throws(CryptoError) -> ASN1Element {
        let elements = try sequence(bytes)
        guard elements.count == 1 else { throw CryptoError(.invalidASN1, "expected exactly one DER element") }
        return elements[0]
    }

    /// The children of a constructed element.
    public func children() throws(CryptoError) -> [ASN1Element] {
        guard isConstructed else { throw CryptoError(.invalidASN1, "element is not constructed") }
        return try Self.sequence(contents)
    }

    /// The value of an INTEGER that fits in Int64.
    public var integerValue: Int64? {
        guard tagClass == .universal, tag == 2, !contents.isEmpty, contents.count <= 8 else { return nil }
        var value: Int64 = contents[0] & 0x80 != 0 ? -1 : 0
        for byte in contents { value = value << 8 | Int64(byte) }
        return value
    }

    private static func read(_ bytes: [UInt8], from offset: Int) throws(CryptoError) -> (ASN1Element, Int) {
        let result: (ASN1Element, Int)? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress! + offset
            let available = buffer.count - offset
            var length = 0
            var tag: Int32 = 0
            var tagClass: Int32 = 0
            let status = ASN1_get_object(&cursor, &length, &tag, &tagClass, available)
            guard status & 0x80 == 0, status & 0x01 == 0, let start = cursor else {
                ERR_clear_error()
                return nil
            }
            let headerLength = start - (buffer.baseAddress! + offset)
            guard length >= 0, headerLength + length <= available else { return nil }
            let contents = Array(UnsafeBufferPointer(start: start, count: length))
            let kind: TagClass =
                switch tagClass {
                case V_ASN1_UNIVERSAL: .universal
                case V_ASN1_APPLICATION: .application
                case V_ASN1_CONTEXT_SPECIFIC: .contextSpecific
                default: .privateUse
                }
            return (
                ASN1Element(tag: Int(tag), tagClass: kind, isConstructed: status & Int32(V_ASN1_CONSTRUCTED) != 0, contents: contents),
                headerLength + length
            )
        }
        guard let result else { throw CryptoError(.invalidASN1, "malformed DER element") }
        return result
    }
}
