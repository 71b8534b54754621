/// A place on this server to send the browser back to: a relative path (`/oauth/authorize?…`), never another origin.
/// What the Apple web flow returns to after Apple's answer; anything else would make passkeyd an open redirector
/// (RFC 9700 §4.11).
struct ReturnPath: Sendable, Equatable {
    static let maximumLength = 4096

    let value: String

    /// `text` when it is a path on this server: it starts with one `/` (not `//`, which a browser reads as another
    /// host, nor `/\`, which it reads the same way), and holds only visible ASCII (no scheme-confusing control
    /// characters, spaces or backslashes).
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumLength, bytes[0] == UInt8(ascii: "/"),
            bytes.count == 1 || (bytes[1] != UInt8(ascii: "/") && bytes[1] != UInt8(ascii: "\\")),
            bytes.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\\") })
        else { return nil }
        value = text
    }

    /// The path with `name=value` added to its query.
    func adding(_ name: String, _ value: String) -> String {
        self.value + (self.value.contains("?") ? "&" : "?") + name + "=" + FormFields.encode(value)
    }
}
