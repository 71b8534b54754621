extension CBORValue {
    /// The value stored under `key` when this is a map, otherwise `nil`.
    public subscript(key: CBORValue) -> CBORValue? {
        mapValue?.first { $0.key == key }?.value
    }

    /// The value stored under an integer label, as COSE keys use, when this is a map: `coseKey[-2]`.
    public subscript(integerKey: Int64) -> CBORValue? {
        mapValue?.first { $0.key.integerValue == integerKey }?.value
    }

    /// The value stored under a text key when this is a map: `attestationObject["fmt"]`.
    public subscript(textKey: String) -> CBORValue? {
        mapValue?.first { $0.key.textValue == textKey }?.value
    }

    /// The integer when this is an unsigned or negative integer that fits in `Int64`.
    public var integerValue: Int64? {
        switch self {
        case .unsigned(let magnitude) where magnitude <= UInt64(Int64.max):
            Int64(magnitude)
        case .negative(let offset) where offset <= UInt64(Int64.max):
            -1 - Int64(offset)
        default:
            nil
        }
    }

    /// The bytes when this is a byte string.
    public var bytesValue: [UInt8]? {
        guard case .bytes(let bytes) = self else { return nil }
        return bytes
    }

    /// The string when this is a text string.
    public var textValue: String? {
        guard case .text(let text) = self else { return nil }
        return text
    }

    /// The elements when this is an array.
    public var arrayValue: [CBORValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The entries, in encoded order, when this is a map.
    public var mapValue: [CBORMapEntry]? {
        guard case .map(let entries) = self else { return nil }
        return entries
    }

    /// An integer value: `.unsigned` for zero and above, `.negative` below zero.
    public init(_ integer: Int64) {
        if integer >= 0 {
            self = .unsigned(UInt64(integer))
        } else {
            self = .negative(UInt64(-1 - integer))
        }
    }
}
