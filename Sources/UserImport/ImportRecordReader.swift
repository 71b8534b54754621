import JSON

/// The records of an import file read in pieces, never whole: the lines of NDJSON (passkeyd's export, Auth0's), or
/// the objects of the one JSON array of the other formats (`JSONArrayElementReader`), each handed out with its number
/// (the line, or the user's position in the array, from 1) as soon as it is complete. A record is at most
/// `AdminExport.maximumLineBytes`: what bounds the memory of an import is one record and one batch, not the file.
public struct ImportRecordReader: Sendable {
    /// How the file holds its records.
    public enum Layout: Sendable, Equatable {
        /// One JSON object a line; blank lines are skipped (and counted).
        case lines
        /// One JSON array of objects: the document (`.array`) or its object's one member (`.member("users")`).
        case array(JSONArrayElementReader.Envelope)
        /// Auth0's: an array when the file's first byte that is not whitespace is `[`, else lines.
        case linesOrArray
    }

    private var layout: Layout
    /// The most lines (blank ones too) or elements, when bounded.
    private let maximumRecords: Int?
    private var line: [UInt8] = []
    private var lineNumber = 0
    private var elements = JSONArrayElementReader(envelope: .array, maximumElementBytes: AdminExport.maximumLineBytes)

    /// A reader of a file of `layout`, refusing one of more than `maximumRecords` lines or elements when given.
    public init(_ layout: Layout, maximumRecords: Int? = nil) {
        self.layout = layout
        self.maximumRecords = maximumRecords
        if case .array(let envelope) = layout {
            elements = JSONArrayElementReader(envelope: envelope, maximumElementBytes: AdminExport.maximumLineBytes)
        }
    }

    /// Reads `bytes`, the next piece of the file, handing each record completed in it to `body` in order.
    /// - Throws: `invalid` with the line for a line over `AdminExport.maximumLineBytes`; `invalid` (`member: users`,
    ///   with the element's position when known) for an array that is not one; what `body` throws.
    public mutating func read(
        _ bytes: ArraySlice<UInt8>,
        _ body: (_ number: Int, _ record: [UInt8]) throws(UserImportError) -> Void
    ) throws(UserImportError) {
        var bytes = bytes
        if layout == .linesOrArray {
            // Leading whitespace decides nothing; its line breaks still count as lines.
            while let first = bytes.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D {
                if first == 0x0A { lineNumber += 1 }
                bytes = bytes.dropFirst()
            }
            guard let first = bytes.first else { return }
            layout = first == UInt8(ascii: "[") ? .array(.array) : .lines
        }
        if case .array = layout {
            try readElements(bytes, body)
            return
        }
        var start = bytes.startIndex
        while let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            try append(bytes[start..<end])
            try completeLine(body)
            start = end + 1
        }
        try append(bytes[start...])
    }

    /// Checks that the file ended where it may, handing out its last line (one without a final line break).
    public mutating func finish(_ body: (_ number: Int, _ record: [UInt8]) throws(UserImportError) -> Void) throws(UserImportError) {
        switch layout {
        case .lines: if !line.isEmpty { try completeLine(body) }
        case .array:
            do throws(JSONArrayElementReader.Failure) { try elements.finish() } catch { throw Self.refusal(error) }
        case .linesOrArray: return
        }
    }

    private mutating func readElements(
        _ bytes: ArraySlice<UInt8>,
        _ body: (_ number: Int, _ record: [UInt8]) throws(UserImportError) -> Void
    ) throws(UserImportError) {
        var refusal: UserImportError?
        let maximumRecords = maximumRecords
        do throws(JSONArrayElementReader.Failure) {
            var position = elements.count
            try elements.read(bytes) { element throws(JSONArrayElementReader.Failure) in
                position += 1
                do throws(UserImportError) {
                    try Self.checkCount(position, maximumRecords)
                    try body(position, element)
                } catch {
                    refusal = error
                    throw JSONArrayElementReader.Failure(reason: "refused", element: position)
                }
            }
        } catch {
            throw refusal ?? Self.refusal(error)
        }
    }

    private static func checkCount(_ number: Int, _ maximumRecords: Int?) throws(UserImportError) {
        if let maximumRecords, number > maximumRecords {
            throw UserImportError(.invalid, reason: "more than \(maximumRecords) lines or users").onLine(number)
        }
    }

    private static func refusal(_ failure: JSONArrayElementReader.Failure) -> UserImportError {
        let error = UserImportError(.invalid, member: "users", reason: failure.reason)
        return failure.element.map(error.onLine) ?? error
    }

    private mutating func append(_ bytes: ArraySlice<UInt8>) throws(UserImportError) {
        // A line may end in "\r" on top of its longest.
        guard line.count + bytes.count <= AdminExport.maximumLineBytes + 1 else {
            throw UserImportError(.invalid, reason: "a line over \(AdminExport.maximumLineBytes) bytes").onLine(lineNumber + 1)
        }
        line += bytes
    }

    private mutating func completeLine(_ body: (_ number: Int, _ record: [UInt8]) throws(UserImportError) -> Void) throws(UserImportError) {
        lineNumber += 1
        try Self.checkCount(lineNumber, maximumRecords)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        defer { line.removeAll(keepingCapacity: true) }
        guard line.count <= AdminExport.maximumLineBytes else {
            throw UserImportError(.invalid, reason: "a line over \(AdminExport.maximumLineBytes) bytes").onLine(lineNumber)
        }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        try body(lineNumber, line)
    }
}
