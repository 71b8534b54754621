/// The elements of one JSON array read from a document that arrives in pieces, each element's bytes handed out as
/// soon as it is complete, so that a file of a million users is read with one element in memory at a time. It only
/// finds where each element begins and ends (strings and their escapes, nesting): each element is then read by a
/// real parser (`StrictJSONParser`, a `Decodable`), which refuses what is not JSON. The array is the whole document
/// (`[…]`) or the one member of the document's object (`{"users": […]}`); every element must be an object, at most
/// `maximumElementBytes` long and `maximumDepth` deep. Anything else fails, and so does a document that ends early.
public struct JSONArrayElementReader: Sendable {
    /// Where the array is.
    public enum Envelope: Sendable, Equatable {
        /// The document is the array.
        case array
        /// The document is an object whose only member, named so (written without escapes), is the array.
        case member(String)
    }

    /// Why the document is refused, for the log and the command line; never a piece of the document.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let reason: String
        /// The element being read (from 1), when there was one.
        public let element: Int?
        public var description: String { reason + (element.map { " (element \($0))" } ?? "") }

        /// A failure of `element` (nil: of the document); a reader's `body` throws one to stop the reading.
        public init(reason: String, element: Int?) {
            self.reason = reason
            self.element = element
        }
    }

    fileprivate enum State: Sendable {
        case beforeDocument
        case memberName(matched: Int)
        case afterMemberName
        case beforeArray
        case firstElementOrEnd
        case beforeElement
        case inElement
        case afterElement
        case afterArray
        case afterDocument
    }

    public static let maximumDepth = 64

    public let envelope: Envelope
    public let maximumElementBytes: Int
    private let name: [UInt8]
    private var state = State.beforeDocument
    private var element: [UInt8] = []
    private var depth = 0
    private var inString = false
    private var escaped = false
    /// Elements completed so far.
    public private(set) var count = 0

    public init(envelope: Envelope, maximumElementBytes: Int) {
        self.envelope = envelope
        self.maximumElementBytes = maximumElementBytes
        if case .member(let name) = envelope { self.name = Array(name.utf8) } else { self.name = [] }
    }

    /// Reads `bytes`, the next piece of the document, handing each element completed in it to `body` in order.
    public mutating func read(_ bytes: ArraySlice<UInt8>, _ body: ([UInt8]) throws(Failure) -> Void) throws(Failure) {
        for byte in bytes {
            if let complete = try step(byte) { try body(complete) }
        }
    }

    /// Checks that the document ended where it may: after its array (and, for a member, its object) closed.
    public func finish() throws(Failure) {
        switch state {
        case .afterDocument: return
        case .afterArray where envelope == .array: return
        default: throw failure("the document ends early")
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private func failure(_ reason: String) -> Failure {
        Failure(reason: reason, element: state.isElement ? count + 1 : nil)
    }

    /// One byte; the element it completes, if any.
    private mutating func step(_ byte: UInt8) throws(Failure) -> [UInt8]? {
        switch state {
        case .inElement:
            return try elementByte(byte)
        case _ where Self.isWhitespace(byte) && state.skipsWhitespace:
            return nil
        case .beforeDocument:
            switch (envelope, byte) {
            case (.array, UInt8(ascii: "[")): state = .firstElementOrEnd
            case (.member, UInt8(ascii: "{")): state = .memberName(matched: -1)
            default: throw failure("the document does not start as expected")
            }
        case .memberName(let matched):
            // -1: before the opening quote; then the bytes of the name matched so far.
            if matched == -1 {
                guard byte == UInt8(ascii: "\"") else { throw failure("the document's object has no member") }
                state = .memberName(matched: 0)
            } else if matched == name.count {
                guard byte == UInt8(ascii: "\"") else { throw failure("an unexpected member") }
                state = .afterMemberName
            } else {
                guard byte == name[matched] else { throw failure("an unexpected member") }
                state = .memberName(matched: matched + 1)
            }
        case .afterMemberName:
            guard byte == UInt8(ascii: ":") else { throw failure("a member without a value") }
            state = .beforeArray
        case .beforeArray:
            guard byte == UInt8(ascii: "[") else { throw failure("the member is not an array") }
            state = .firstElementOrEnd
        case .firstElementOrEnd where byte == UInt8(ascii: "]"):
            state = .afterArray
        case .firstElementOrEnd, .beforeElement:
            guard byte == UInt8(ascii: "{") else { throw failure("an element that is not an object") }
            state = .inElement
            (element, depth, inString, escaped) = ([byte], 1, false, false)
        case .afterElement:
            switch byte {
            case UInt8(ascii: ","): state = .beforeElement
            case UInt8(ascii: "]"): state = .afterArray
            default: throw failure("an element not followed by a comma or the array's end")
            }
        case .afterArray:
            guard envelope != .array, byte == UInt8(ascii: "}") else { throw failure("content after the array") }
            state = .afterDocument
        case .afterDocument:
            throw failure("content after the document")
        }
        return nil
    }

    /// A byte inside an element: strings skipped (an escaped quote does not end one), brackets counted.
    private mutating func elementByte(_ byte: UInt8) throws(Failure) -> [UInt8]? {
        guard element.count < maximumElementBytes else { throw failure("an element over \(maximumElementBytes) bytes") }
        element.append(byte)
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return nil
        }
        switch byte {
        case UInt8(ascii: "\""): inString = true
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            depth += 1
            guard depth <= Self.maximumDepth else { throw failure("an element nested too deep") }
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            depth -= 1
            if depth == 0 {
                count += 1
                state = .afterElement
                let complete = element
                element = []
                return complete
            }
        default: break
        }
        return nil
    }
}

extension JSONArrayElementReader.State {
    /// Whether whitespace may come here (everywhere between tokens; not inside the member's name).
    fileprivate var skipsWhitespace: Bool {
        switch self {
        case .memberName(let matched): matched == -1
        default: true
        }
    }

    fileprivate var isElement: Bool {
        switch self {
        case .inElement, .beforeElement, .firstElementOrEnd: true
        default: false
        }
    }
}
