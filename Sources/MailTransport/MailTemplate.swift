import Foundation

/// The text of one part of a message (subject, plain text or HTML) with `{{name}}` placeholders: the one substitution
/// syntax of passkeyd's mail. Spaces inside the braces are allowed (`{{ code }}`); there are no conditions, loops or
/// filters. Every placeholder must be one of the names the message provides, so a typo fails at start-up.
public struct MailTemplate: Sendable, Equatable {
    public static let maximumLength = 64 * 1024
    public static let maximumNameLength = 32

    enum Piece: Sendable, Equatable {
        case text(String)
        case placeholder(String)
    }

    let pieces: [Piece]

    /// Parses `source`; throws `mail.templateInvalid` for an unclosed `{{`, a placeholder that is not a name (a
    /// letter, then letters and digits) or not in `names`, or a source over `maximumLength` bytes.
    public init(_ source: String, names: Set<String>) throws(MailError) {
        guard source.utf8.count <= Self.maximumLength else {
            throw MailError(.templateInvalid, "the template is over \(Self.maximumLength) bytes")
        }
        var pieces: [Piece] = []
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                throw MailError(.templateInvalid, "a {{ is not closed by }}")
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingSpaces()
            guard Self.isName(name) else {
                throw MailError(.templateInvalid, "a placeholder is not a name of at most \(Self.maximumNameLength) letters and digits")
            }
            guard names.contains(String(name)) else {
                throw MailError(.templateInvalid, "{{\(name)}} is not a value of this message (known: \(names.sorted().joined(separator: ", ")))")
            }
            pieces.append(.placeholder(String(name)))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        self.pieces = pieces
    }

    /// The names the template uses.
    public var names: Set<String> {
        Set(pieces.compactMap { if case .placeholder(let name) = $0 { name } else { nil } })
    }

    /// The text with every placeholder replaced by its value (an empty string for a name without one), the values
    /// HTML-escaped when `escapingHTML` (the literal text never is: it is the template author's HTML).
    public func render(_ values: [String: String], escapingHTML: Bool) -> String {
        var output = ""
        for piece in pieces {
            switch piece {
            case .text(let text): output += text
            case .placeholder(let name):
                let value = values[name] ?? ""
                output += escapingHTML ? Self.escapeHTML(value) : value
            }
        }
        return output
    }

    /// `&`, `<`, `>`, `"` and `'` as character references: safe in element content and in quoted attributes.
    public static func escapeHTML(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func isName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= maximumNameLength else { return false }
        let isLetter = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        }
        return isLetter(first) && name.utf8.allSatisfy { isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var trimmed = self
        while trimmed.first == " " { trimmed = trimmed.dropFirst() }
        while trimmed.last == " " { trimmed = trimmed.dropLast() }
        return trimmed
    }
}
