import Foundation

/// Text that goes into a header field: checked for characters that could end the field, and written as plain ASCII
/// or as RFC 2047 encoded words.
enum HeaderText {
    /// Refuses CR, LF, NUL and every other control character (tab included) and text over `maximumLength` characters:
    /// nothing a caller passes can end a header field and start another one.
    static func check(_ text: String, field: String, maximumLength: Int) throws(MailError) {
        guard text.count <= maximumLength else {
            throw MailError(.headerInvalid, "the \(field) is over \(maximumLength) characters")
        }
        guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) }) else {
            throw MailError(.headerInvalid, "the \(field) holds CR, LF, NUL or another control character")
        }
    }

    /// Whether `text` can stand in a header as it is: printable ASCII without `=?` (which a reader would take for the
    /// start of an encoded word).
    static func isPlain(_ text: String, allowing specials: Bool) -> Bool {
        let unquotable = Array("()<>[]:;@\\,.\"".utf8)
        return !text.contains("=?")
            && text.utf8.allSatisfy { byte in
                (0x20..<0x7F).contains(byte) && (specials || !unquotable.contains(byte))
            }
    }

    /// RFC 2047 section 2 and 5: `=?UTF-8?B?…?=` words of at most 75 characters each, every word whole UTF-8
    /// sequences (Unicode scalars), joined by folding white space (CRLF SP).
    static func encodedWords(_ text: String) -> String {
        // "=?UTF-8?B?" + base64 + "?=": 12 characters of frame, so at most 63 of base64, 45 bytes of text.
        let maximumChunkBytes = 45
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > maximumChunkBytes, !chunk.isEmpty {
                words.append(word(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }
}
