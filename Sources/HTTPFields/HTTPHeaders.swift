import Foundation

/// An ordered list of HTTP header fields with case-insensitive lookup by name: the fields of the server's requests and
/// responses and of the outbound client's requests and replies alike. Its per-request methods are `@inlinable`, so
/// the server calls them as directly as when the type was its own.
public struct HTTPHeaders: Sendable, Sequence {
    @usableFromInline var fields: [(name: String, value: String)]

    /// Room for this many fields is made at once: a response gathers about that many from its handler and the server
    /// (each growth of the list would be a new allocation and a copy).
    @usableFromInline static let expectedCount = 8

    /// Creates headers from name/value pairs, keeping their order.
    @inlinable public init(_ pairs: [(String, String)] = []) {
        fields = []
        fields.reserveCapacity(Swift.max(pairs.count, Self.expectedCount))
        for (name, value) in pairs { fields.append((name: name, value: value)) }
    }

    /// The first value of the field `name` (compared case-insensitively), or nil.
    @inlinable public subscript(name: String) -> String? {
        fields.first { Self.namesMatch($0.name, name) }?.value
    }

    /// Every value of the field `name` (compared case-insensitively), in order.
    /// The values of every cookie named `name` in the `Cookie` fields, in order (RFC 6265 §5.4: `name=value` pairs
    /// separated by `;`). A request may carry a name more than once; the caller decides what that means.
    public func cookies(named name: String) -> [String] {
        var found: [String] = []
        for header in values("cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    found.append(parts[1].trimmingCharacters(in: .whitespaces))
                }
            }
        }
        return found
    }

    public func values(_ name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Whether two field names are equal ignoring ASCII case (field names are ASCII tokens), without making
    /// lowercased copies: this runs for every header of every request and response.
    /// The bytes are compared in place when both names are stored contiguously (as every name read off the wire or
    /// written in the code is): no iterator per byte.
    @inlinable package static func namesMatch(_ left: String, _ right: String) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        let compared = left.utf8.withContiguousStorageIfAvailable { leftBytes in
            right.utf8.withContiguousStorageIfAvailable { rightBytes in
                for index in 0..<leftBytes.count where !bytesMatch(leftBytes[index], rightBytes[index]) { return false }
                return true
            }
        }
        if let compared = compared ?? nil { return compared }
        return zip(left.utf8, right.utf8).allSatisfy(bytesMatch)
    }

    /// Whether two bytes of field names are equal ignoring ASCII case.
    @inlinable static func bytesMatch(_ leftByte: UInt8, _ rightByte: UInt8) -> Bool {
        leftByte == rightByte || (isASCIILetter(leftByte) && leftByte | 0x20 == rightByte | 0x20)
    }

    @inlinable static func isASCIILetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    /// Appends a field; existing fields with the same name are kept.
    @inlinable public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Whether a field called `name` (compared case-insensitively) is present.
    @inlinable public func contains(_ name: String) -> Bool {
        self[name] != nil
    }

    @inlinable public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}
