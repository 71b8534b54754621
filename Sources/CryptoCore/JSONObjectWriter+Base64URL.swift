import JSON

extension JSONObjectWriter {
    /// A string member whose value is the base64url text of `bytes` (which needs no escape), written without making
    /// a String.
    public mutating func add(_ name: StaticString, base64URL bytes: [UInt8]) {
        add(name, unescapedString: { Base64URL.append(bytes, to: &$0) })
    }
}
