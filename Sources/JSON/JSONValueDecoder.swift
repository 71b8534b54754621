/// Decodes a request body's `Decodable` type from the tree the strict parser already built (`StrictJSONParser`), so
/// that a body is parsed once instead of twice (the strictness check, then Foundation's `JSONDecoder`: 3.9 % of the
/// server's samples under sign-ins, the two passes now 3.0 %). It throws what `JSONDecoder` throws for the same text: `keyNotFound`
/// for a missing member, `valueNotFound` for a `null` where a value must be, `typeMismatch` for a value of another
/// type, each with the coding path of the member; `dataCorrupted` for a number that does not fit its type. Unknown
/// members are ignored, or refused (`refusingUnknownMembers`) with `UnknownMemberError`. `JSONValueDecoderTests` runs
/// both decoders over the same bodies.
package enum JSONValueDecoder {
    package static func decode<Value: Decodable>(_ type: Value.Type, from value: JSONValue) throws -> Value {
        try Value(from: TreeDecoder(value: value, codingPath: [], ledger: nil))
    }

    /// `decode`, then every member of every object the type read must be one it asked for: a member it never looked
    /// up (a misspelling, a member of a newer version, one the endpoint does not take) is `UnknownMemberError`, never
    /// silently dropped. A member decoded as `JSONValue` or a dictionary is read whole.
    package static func decode<Value: Decodable>(_ type: Value.Type, from value: JSONValue, refusingUnknownMembers: Bool) throws -> Value {
        guard refusingUnknownMembers else { return try decode(type, from: value) }
        let ledger = MemberLedger()
        let decoded = try Value(from: TreeDecoder(value: value, codingPath: [], ledger: ledger))
        try ledger.check()
        return decoded
    }
}

/// A member of a request body that its type does not take: `path` as the client wrote it (`metadata`, `users[2].name`).
package struct UnknownMemberError: Error, Equatable {
    package let path: String
}

/// The objects a decode opened and the members it looked up in each, for `refusingUnknownMembers`.
private final class MemberLedger {
    private var objects: [(path: [any CodingKey], members: [String: JSONValue], read: Set<String>)] = []

    /// Registers an object about to be read; the answer names it to `read`.
    func open(_ members: [String: JSONValue], at path: [any CodingKey]) -> Int {
        objects.append((path, members, []))
        return objects.count - 1
    }

    func read(_ name: String, in object: Int) {
        objects[object].read.insert(name)
    }

    /// Throws for the first member (in the order of the objects, then of the names) no one looked up.
    func check() throws {
        for object in objects {
            guard let unknown = object.members.keys.filter({ !object.read.contains($0) }).min() else { continue }
            let path = (object.path.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined() + "." + unknown)
            throw UnknownMemberError(path: String(path.drop { $0 == "." }))
        }
    }
}

/// The member of an array at `index`, as `JSONDecoder` names it in a coding path.
private struct IndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(index: Int) {
        intValue = index
        stringValue = "Index \(index)"
    }

    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.init(index: intValue) }
}

private struct TreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    /// Set when unknown members are refused.
    let ledger: MemberLedger?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        if case .null = value { throw TreeDecoder.null([String: Any].self, codingPath, "keyed decoding container") }
        guard case .object(let members) = value else {
            throw TreeDecoder.mismatch([String: Any].self, value, codingPath)
        }
        let object = ledger?.open(members, at: codingPath)
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath, ledger: ledger, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        if case .null = value { throw TreeDecoder.null([Any].self, codingPath, "unkeyed decoding container") }
        guard case .array(let items) = value else {
            throw TreeDecoder.mismatch([Any].self, value, codingPath)
        }
        return UnkeyedContainer(items: items, codingPath: codingPath, ledger: ledger)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValue(value: value, codingPath: codingPath, ledger: ledger) }

    static func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
        .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(value.kind) instead."))
    }

    static func null(_ type: Any.Type, _ path: [any CodingKey], _ what: String) -> DecodingError {
        .valueNotFound(type, .init(codingPath: path, debugDescription: "Cannot get \(what) -- found null value instead"))
    }

    static func corrupted(_ number: Double, _ type: Any.Type, _ path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: "Parsed JSON number <\(number)> does not fit in \(type)."))
    }

    /// `value` as `type`: the scalars read directly, anything else (an optional, a struct, an array, a `JSONValue`)
    /// through its `Decodable` initializer. A `null` scalar is `valueNotFound`, except a `Bool`'s, which
    /// `JSONDecoder` reports as a type mismatch.
    static func decode<Value: Decodable>(_ type: Value.Type, _ value: JSONValue, _ path: [any CodingKey], _ ledger: MemberLedger?) throws -> Value {
        switch type {
        case is Bool.Type:
            guard case .bool(let flag) = value else { throw mismatch(type, value, path) }
            return flag as! Value
        case is String.Type:
            if case .null = value { throw null(type, path, "value of type String") }
            guard case .string(let text) = value else { throw mismatch(type, value, path) }
            return text as! Value
        case is Double.Type:
            return try number(Double.self, value, path) as! Value
        case is Float.Type:
            let number = try number(Float.self, value, path)
            guard Float(number).isFinite else { throw corrupted(number, type, path) }
            return Float(number) as! Value
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type, is UInt.Type, is UInt8.Type, is UInt16.Type,
            is UInt32.Type, is UInt64.Type:
            // Compared as metatypes first: the conformance cast alone would cost a lookup for every struct decoded.
            let integerType = type as! any FixedWidthInteger.Type
            return try integer(integerType, value, path) as! Value
        default:
            return try Value(from: TreeDecoder(value: value, codingPath: path, ledger: ledger))
        }
    }

    /// A finite number (a text such as `1e400` overflows to infinity, which `JSONDecoder` refuses).
    static func number(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> Double {
        if case .null = value { throw null(type, path, "value of type \(type)") }
        guard case .number(let number) = value else { throw mismatch(type, value, path) }
        guard number.isFinite else { throw corrupted(number, type, path) }
        return number
    }

    /// An integer the tree's `Double` holds exactly: past 2^53 a number may have lost digits, so it is refused
    /// (`JSONDecoder` would read it exactly; no request member is an integer that large).
    static func integer<Integer: FixedWidthInteger>(_ type: Integer.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> Integer {
        let number = try number(type, value, path)
        guard number.magnitude < 9_007_199_254_740_992, let integer = Integer(exactly: number) else { throw corrupted(number, type, path) }
        return integer
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]
    let ledger: MemberLedger?
    /// This object in `ledger`.
    let object: Int?

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool {
        markRead(key)
        return members[key.stringValue] != nil
    }

    private func markRead(_ key: Key) {
        if let ledger, let object { ledger.read(key.stringValue, in: object) }
    }

    private func member(_ key: Key) throws -> JSONValue {
        markRead(key)
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try member(key) { return true }
        return false
    }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try TreeDecoder.decode(type, try member(key), codingPath + [key], ledger)
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        markRead(key)
        guard let value = members[key.stringValue] else { return nil }
        if case .null = value { return nil }
        return try TreeDecoder.decode(type, value, codingPath + [key], ledger)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try TreeDecoder(value: try member(key), codingPath: codingPath + [key], ledger: ledger).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TreeDecoder(value: try member(key), codingPath: codingPath + [key], ledger: ledger).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        TreeDecoder(value: .object(members), codingPath: codingPath, ledger: ledger)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        markRead(key)
        return TreeDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key], ledger: ledger)
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    let ledger: MemberLedger?
    var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey], ledger: MemberLedger?) {
        self.items = items
        self.codingPath = codingPath
        self.ledger = ledger
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private var currentPath: [any CodingKey] { codingPath + [IndexKey(index: currentIndex)] }

    private func current<Value>(_ type: Value.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        return items[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try current(JSONValue.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let decoded = try TreeDecoder.decode(type, try current(type), currentPath, ledger)
        currentIndex += 1
        return decoded
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try TreeDecoder(value: try current([String: Any].self), codingPath: currentPath, ledger: ledger).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try TreeDecoder(value: try current([Any].self), codingPath: currentPath, ledger: ledger).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = TreeDecoder(value: try current(JSONValue.self), codingPath: currentPath, ledger: ledger)
        currentIndex += 1
        return decoder
    }
}

private struct SingleValue: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let ledger: MemberLedger?

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try TreeDecoder.decode(type, value, codingPath, ledger)
    }
}

extension JSONValue {
    /// The JSON type's name, for a type mismatch's description.
    fileprivate var kind: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }
}
