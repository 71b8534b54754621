import UserImport

extension ImportRecordReader {
    /// Every record of `body`, read in pieces of `pieceBytes` (small, so that records cross pieces), each through
    /// `read`; a refusal of `read` names the record's number, as the admin API's importer names it.
    static func records<Value>(
        _ body: [UInt8],
        layout: Layout,
        pieceBytes: Int = 7,
        maximumRecords: Int? = nil,
        _ read: (_ number: Int, _ record: [UInt8]) throws(UserImportError) -> Value
    ) throws(UserImportError) -> [Value] {
        var reader = ImportRecordReader(layout, maximumRecords: maximumRecords)
        var values: [Value] = []
        let each = { (number: Int, record: [UInt8]) throws(UserImportError) in
            do throws(UserImportError) { values.append(try read(number, record)) } catch { throw error.onLine(number) }
        }
        var start = 0
        while start < body.count {
            try reader.read(body[start..<min(start + pieceBytes, body.count)], each)
            start += pieceBytes
        }
        try reader.finish(each)
        return values
    }
}
