/// Assembles `CBORValue`s from a stream of heads on an explicit stack, enforcing the limits
/// and every rule the heads alone cannot show: where breaks may appear, what an
/// indefinite-length string may contain, unique map keys and valid UTF-8.
struct CBORStreamBuilder {
    /// A container whose items are still arriving.
    private struct Frame {
        enum Kind: Equatable {
            case array
            case map
            case tag(UInt64)
            case byteStringChunks
            case textStringChunks
        }

        let kind: Kind
        /// Items still expected, or `nil` until an indefinite-length container's break.
        var remaining: Int?
        /// The items so far; a map holds keys and values alternately.
        var items: [CBORValue] = []
    }

    /// Maps with more entries than this are checked for duplicate keys by hashing, not pairwise.
    private static let pairwiseKeyCheckLimit = 16

    private let limits: CBORLimits
    private var frames: [Frame] = []
    private var itemCount = 0

    init(limits: CBORLimits) {
        self.limits = limits
    }

    /// Adds the next head; returns the top-level value once it is complete.
    ///
    /// `bytesLeft` is how much input follows the head, which bounds what a declared count can honestly promise.
    mutating func add(_ head: CBORHead, bytesLeft: Int) throws(CBORError) -> CBORValue? {
        try count(head)
        try checkChunk(head)
        switch head {
        case .unsigned(let value):
            return try attach(.unsigned(value))
        case .negative(let value):
            return try attach(.negative(value))
        case .byteString(let payload):
            return try attach(.bytes(Array(payload)))
        case .textString(let payload):
            guard let text = String(validating: payload, as: UTF8.self) else {
                throw CBORError(.invalidUTF8, "A text string is not valid UTF-8.")
            }
            return try attach(.text(text))
        case .indefiniteByteString:
            return try open(.byteStringChunks, remaining: nil)
        case .indefiniteTextString:
            return try open(.textStringChunks, remaining: nil)
        case .array(let count):
            guard count >= 0, count <= bytesLeft else {
                throw CBORError(.tooLarge, "An array declares more elements than the input could hold.")
            }
            try reserveItems(count)
            return try open(.array, remaining: count)
        case .indefiniteArray:
            return try open(.array, remaining: nil)
        case .map(let count):
            guard count >= 0, count <= bytesLeft / 2 else {
                throw CBORError(.tooLarge, "A map declares more entries than the input could hold.")
            }
            try reserveItems(2 * count)
            return try open(.map, remaining: 2 * count)
        case .indefiniteMap:
            return try open(.map, remaining: nil)
        case .tag(let tag):
            return try open(.tag(tag), remaining: 1)
        case .float(let value):
            return try attach(.float(value))
        case .boolean(let value):
            return try attach(.boolean(value))
        case .null:
            return try attach(.null)
        case .undefined:
            return try attach(.undefined)
        case .simple(let value):
            return try attach(.simple(value))
        case .break:
            return try closeIndefiniteContainer()
        }
    }

    /// Counts every head but a break, which ends an item rather than being one.
    private mutating func count(_ head: CBORHead) throws(CBORError) {
        if case .break = head { return }
        itemCount += 1
        guard itemCount <= limits.maximumItems else {
            throw CBORError(.tooManyItems, "The input holds more data items than the limit allows.")
        }
    }

    /// RFC 8949 §3.2.3: an indefinite-length string holds only definite-length strings of its own major type.
    private func checkChunk(_ head: CBORHead) throws(CBORError) {
        switch (frames.last?.kind, head) {
        case (.byteStringChunks, .byteString), (.textStringChunks, .textString), (_, .break):
            return
        case (.byteStringChunks, _), (.textStringChunks, _):
            throw CBORError(.malformed, "An indefinite-length string holds something other than a definite string of its type.")
        default:
            return
        }
    }

    /// Fails early when a declared count alone would exceed the item limit.
    private func reserveItems(_ count: Int) throws(CBORError) {
        guard count <= limits.maximumItems - itemCount else {
            throw CBORError(.tooManyItems, "A container declares more data items than the limit allows.")
        }
    }

    private mutating func open(_ kind: Frame.Kind, remaining: Int?) throws(CBORError) -> CBORValue? {
        guard frames.count < limits.maximumDepth else {
            throw CBORError(.depthExceeded, "Containers are nested deeper than the limit allows.")
        }
        var frame = Frame(kind: kind, remaining: remaining)
        if remaining == 0 {
            return try attach(Self.value(of: frame))
        }
        frame.items.reserveCapacity(remaining ?? 0)
        frames.append(frame)
        return nil
    }

    private mutating func closeIndefiniteContainer() throws(CBORError) -> CBORValue? {
        guard let frame = frames.last, frame.remaining == nil else {
            throw CBORError(.malformed, "A break appears outside an indefinite-length item.")
        }
        guard frame.kind != .map || frame.items.count.isMultiple(of: 2) else {
            throw CBORError(.malformed, "An indefinite-length map ends with a key that has no value.")
        }
        return try attach(Self.value(of: frames.removeLast()))
    }

    /// Adds a complete value to the innermost open container, closing every container it completes.
    private mutating func attach(_ value: CBORValue) throws(CBORError) -> CBORValue? {
        var value = value
        while !frames.isEmpty {
            let top = frames.count - 1
            frames[top].items.append(value)
            guard let remaining = frames[top].remaining else { return nil }
            guard remaining == 1 else {
                frames[top].remaining = remaining - 1
                return nil
            }
            value = try Self.value(of: frames.removeLast())
        }
        return value
    }

    private static func value(of frame: Frame) throws(CBORError) -> CBORValue {
        switch frame.kind {
        case .array:
            return .array(frame.items)
        case .map:
            let entries = stride(from: 0, to: frame.items.count, by: 2).map {
                CBORMapEntry(key: frame.items[$0], value: frame.items[$0 + 1])
            }
            try checkUniqueKeys(entries)
            return .map(entries)
        case .tag(let tag):
            return .tagged(tag, frame.items[0])
        case .byteStringChunks:
            var bytes: [UInt8] = []
            for case .bytes(let chunk) in frame.items {
                bytes += chunk
            }
            return .bytes(bytes)
        case .textStringChunks:
            var text = ""
            for case .text(let chunk) in frame.items {
                text += chunk
            }
            return .text(text)
        }
    }

    private static func checkUniqueKeys(_ entries: [CBORMapEntry]) throws(CBORError) {
        let duplicateKey = CBORError(.duplicateMapKey, "A map holds the same key twice.")
        if entries.count <= pairwiseKeyCheckLimit {
            for index in entries.indices.dropFirst() {
                for earlier in entries[..<index] where earlier.key == entries[index].key {
                    throw duplicateKey
                }
            }
        } else {
            var keys = Set<CBORValue>(minimumCapacity: entries.count)
            for entry in entries where !keys.insert(entry.key).inserted {
                throw duplicateKey
            }
        }
    }
}
