/// One decoded CBOR data item (RFC 8949 §3).
///
/// Values compare structurally: `1` and `1.0` are different values, and so are
/// `.simple(20)` and `.boolean(false)` (the decoder only ever produces the latter).
public indirect enum CBORValue: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: a negative integer whose value is `-1 - n`.
    case negative(UInt64)
    /// Major type 2: a byte string (indefinite-length strings arrive joined).
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string (indefinite-length strings arrive joined).
    case text(String)
    /// Major type 4: an array.
    case array([CBORValue])
    /// Major type 5: a map, its entries in encoded order.
    case map([CBORMapEntry])
    /// Major type 6: a tag number and the item it encloses.
    case tagged(UInt64, CBORValue)
    /// Simple values 20 and 21.
    case boolean(Bool)
    /// Simple value 22.
    case null
    /// Simple value 23.
    case undefined
    /// Any other simple value (0–19 and 32–255).
    case simple(UInt8)
    /// A half-, single- or double-precision float.
    case float(Double)
}

/// One key–value pair of a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    /// The entry's key.
    public var key: CBORValue
    /// The entry's value.
    public var value: CBORValue

    /// Creates a map entry.
    public init(key: CBORValue, value: CBORValue) {
        self.key = key
        self.value = value
    }
}
