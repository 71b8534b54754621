import HTTPFields

/// Writes a whole HTTP/1.1 response (status line, header fields, the blank line, the body) in one piece, for the
/// answers that keep their connection as it is (see `EventLoopListener.send`). evhttp would otherwise copy every field
/// into a list of its own (an allocation for the entry, its name and its value), search that list for the fields it
/// adds itself, and format each line with `printf`: together 14 % of the server's CPU for a well-known file.
enum ResponseSerializer {
    /// The response `status` with `headers` (a `Content-Length` among them replaced by the body's length, a field
    /// whose name or value holds CR, LF or NUL dropped), `Content-Length`, and `Date` and `Strict-Transport-Security`
    /// unless `headers` has them, then `body`.
    static func bytes(status: Int, headers: HTTPHeaders, body: [UInt8], date: String, strictTransportSecurity: String?) -> [UInt8] {
        let capacity = capacity(status: status, headers: headers, body: body, date: date, strictTransportSecurity: strictTransportSecurity)
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            initialized = write(
                status: status,
                headers: headers,
                body: body,
                date: date,
                strictTransportSecurity: strictTransportSecurity,
                into: buffer
            )
        }
    }

    /// The most bytes `write` writes for these parts: every field counted as if it were kept.
    static func capacity(status: Int, headers: HTTPHeaders, body: [UInt8], date: String, strictTransportSecurity: String?) -> Int {
        // "HTTP/1.1 " status " " reason CRLF; "Content-Length: " digits CRLF; "Date: " date CRLF; the blank line.
        var total = 9 + Cursor.maximumDigits + 1 + HTTPResponse.reasonPhrase(for: status).utf8.count + 2
        total += 16 + Cursor.maximumDigits + 2 + 6 + date.utf8.count + 2 + 2
        if let strictTransportSecurity { total += 27 + strictTransportSecurity.utf8.count + 2 }
        for (name, value) in headers { total += name.utf8.count + 2 + value.utf8.count + 2 }
        return total + body.count
    }

    /// Writes the response (see `bytes`) into `buffer`, at least `capacity(…)` long; returns the bytes written.
    static func write(
        status: Int,
        headers: HTTPHeaders,
        body: [UInt8],
        date: String,
        strictTransportSecurity: String?,
        into buffer: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var cursor = Cursor(base: base, capacity: buffer.count)
        cursor.append("HTTP/1.1 ")
        cursor.append(decimal: status)
        cursor.append(" ")
        cursor.append(HTTPResponse.reasonPhrase(for: status))
        cursor.endLine()
        var hasDate = false
        var hasStrictTransportSecurity = false
        for (name, value) in headers {
            if HTTPHeaders.namesMatch(name, "Content-Length") { continue }
            guard cursor.field(name, value) else { continue }
            hasDate = hasDate || HTTPHeaders.namesMatch(name, "Date")
            hasStrictTransportSecurity = hasStrictTransportSecurity || HTTPHeaders.namesMatch(name, "Strict-Transport-Security")
        }
        cursor.append("Content-Length: ")
        cursor.append(decimal: body.count)
        cursor.endLine()
        if !hasDate { cursor.field("Date", date) }
        if let strictTransportSecurity, !hasStrictTransportSecurity {
            cursor.field("Strict-Transport-Security", strictTransportSecurity)
        }
        cursor.endLine()
        body.withUnsafeBufferPointer { cursor.append($0) }
        return cursor.count
    }

    /// Whether `text` can stand in a header line: no CR or LF (not even as an obsolete line folding, which evhttp
    /// would let through) and no NUL (which would cut the C string evhttp is handed).
    static func isFieldText(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isFieldText($0) }
    }

    /// `isFieldText` of bytes, eight at a time: a word none of whose bytes is below 0x0E cannot hold CR, LF or NUL.
    static func isFieldText(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // Sets the high bit of a byte below 0x0E (exact as a zero test for thresholds up to 0x80).
            if (word &- 0x0E0E_0E0E_0E0E_0E0E) & ~word & 0x8080_8080_8080_8080 != 0 { break }
            index += 8
        }
        while index < bytes.count {
            let byte = base[index]
            if byte <= 0x0D && (byte == 0x0D || byte == 0x0A || byte == 0) { return false }
            index += 1
        }
        return true
    }

    /// The write position in a buffer that `capacity(…)` sized; writing past its end stops the process rather than
    /// the memory after it.
    private struct Cursor {
        /// The digits of the longest `Int`.
        static let maximumDigits = 20

        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int
        var count = 0

        private func makeRoom(_ length: Int) {
            precondition(count + length <= capacity, "a response outgrew the capacity counted for it")
        }

        /// Appends the line `name: value`, or nothing (and false) if either holds CR, LF (which would start a field
        /// or a body of the client's choosing) or NUL.
        @discardableResult
        mutating func field(_ name: String, _ value: String) -> Bool {
            let start = count
            append(name)
            append(": ")
            append(value)
            guard ResponseSerializer.isFieldText(UnsafeBufferPointer(start: base + start, count: count - start)) else {
                count = start
                return false
            }
            endLine()
            return true
        }

        mutating func endLine() {
            makeRoom(2)
            base[count] = 0x0D
            base[count + 1] = 0x0A
            count += 2
        }

        mutating func append(_ text: String) {
            if text.utf8.withContiguousStorageIfAvailable({ append($0) }) == nil {
                var text = text
                text.withUTF8 { append($0) }
            }
        }

        mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress else { return }
            makeRoom(bytes.count)
            (base + count).update(from: source, count: bytes.count)
            count += bytes.count
        }

        /// Appends a non-negative `value` in decimal (a negative one as 0: neither a status nor a length is).
        mutating func append(decimal value: Int) {
            makeRoom(Self.maximumDigits)
            var remaining = max(value, 0)
            var digits = 0
            repeat {
                base[count + digits] = UInt8(ascii: "0") + UInt8(remaining % 10)
                remaining /= 10
                digits += 1
            } while remaining > 0
            // The digits were written least significant first.
            var written = UnsafeMutableBufferPointer(start: base + count, count: digits)
            written.reverse()
            count += digits
        }
    }
}
