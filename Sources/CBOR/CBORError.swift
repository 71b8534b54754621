/// Why a CBOR input was rejected.
///
/// `code` is a stable identifier to match on; `reason` is a short sentence for logs.
/// Neither ever contains input bytes.
///
/// Codes: `cbor.empty`, `cbor.truncated` (the input ends inside an item, including a
/// string whose declared length is longer than the bytes left), `cbor.malformed`,
/// `cbor.trailingBytes`, `cbor.duplicateMapKey`, `cbor.depthExceeded`,
/// `cbor.tooManyItems`, `cbor.tooLarge` (the input is over the size limit, or an array
/// or map declares more entries than the bytes left could hold) and `cbor.invalidUTF8`.
public struct CBORError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable identifier, prefixed `cbor.`.
    public let code: String
    /// A short human-readable sentence.
    public let reason: String

    public var description: String { "\(code): \(reason)" }

    init(code: String, reason: String) {
        self.code = code
        self.reason = reason
    }

    static let empty = CBORError(code: "cbor.empty", reason: "The input is empty.")

    static func truncated(_ reason: String) -> CBORError { CBORError(code: "cbor.truncated", reason: reason) }
    static func malformed(_ reason: String) -> CBORError { CBORError(code: "cbor.malformed", reason: reason) }
    static func trailingBytes(_ reason: String) -> CBORError { CBORError(code: "cbor.trailingBytes", reason: reason) }
    static func duplicateMapKey(_ reason: String) -> CBORError { CBORError(code: "cbor.duplicateMapKey", reason: reason) }
    static func depthExceeded(_ reason: String) -> CBORError { CBORError(code: "cbor.depthExceeded", reason: reason) }
    static func tooManyItems(_ reason: String) -> CBORError { CBORError(code: "cbor.tooManyItems", reason: reason) }
    static func tooLarge(_ reason: String) -> CBORError { CBORError(code: "cbor.tooLarge", reason: reason) }
    static func invalidUTF8(_ reason: String) -> CBORError { CBORError(code: "cbor.invalidUTF8", reason: reason) }
}
