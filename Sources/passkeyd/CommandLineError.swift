/// A command line `passkeyd` cannot run: the message names the argument at fault, followed by the command's usage.
struct CommandLineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable code; `rawValue` is its log form (`commandLine.unknownOption`) and never changes.
    struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, CaseIterable {
            case unknownOption = "commandLine.unknownOption"
            case missingValue = "commandLine.missingValue"
            case unexpectedValue = "commandLine.unexpectedValue"
            case repeatedOption = "commandLine.repeatedOption"
            case missingOption = "commandLine.missingOption"
            case unexpectedArgument = "commandLine.unexpectedArgument"
            case invalidArgument = "commandLine.invalidArgument"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// An option the command does not know.
        static let unknownOption = Code(.unknownOption)
        /// An option that takes a value came without one.
        static let missingValue = Code(.missingValue)
        /// A switch came with a value (`--flag=x`).
        static let unexpectedValue = Code(.unexpectedValue)
        /// An option that may be given once was given twice.
        static let repeatedOption = Code(.repeatedOption)
        /// A required option or argument is absent.
        static let missingOption = Code(.missingOption)
        /// More positionals than the command takes.
        static let unexpectedArgument = Code(.unexpectedArgument)
        /// A value or combination of arguments the command cannot use.
        static let invalidArgument = Code(.invalidArgument)

        var rawValue: String { base.rawValue }
        var description: String { rawValue }
        static var allCases: [Code] { Base.allCases.map(Code.init) }
    }

    let code: Code
    let reason: String
    let usage: String

    init(_ code: Code, _ reason: String, usage: String) {
        self.code = code
        self.reason = reason
        self.usage = usage
    }

    var description: String { "\(reason)\nusage: \(usage)" }
}
