/// A command line parsed by `CommandLineSyntax`: the values of its options, its switches and its positionals.
struct ParsedCommandLine {
    let usage: String
    var optionValues: [String: [String]] = [:]
    var switches: Set<String> = []
    var positionals: [String] = []

    /// The value of an option given once; nil when absent.
    func value(_ option: String) -> String? { optionValues[option]?.last }

    /// Every value of a repeated option, in order; empty when absent.
    func values(_ option: String) -> [String] { optionValues[option] ?? [] }

    /// Whether a switch was given.
    func isSet(_ option: String) -> Bool { switches.contains(option) }

    /// The value of an option the command cannot run without.
    func required(_ option: String) throws(CommandLineError) -> String {
        guard let value = value(option) else { throw CommandLineError(.missingOption, "\(option) is required", usage: usage) }
        return value
    }
}
