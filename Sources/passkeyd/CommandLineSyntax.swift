/// What one `passkeyd` command accepts on its command line, and the parser for it: options with a value
/// (`--jwks FILE` or `--jwks=FILE`), options that may be repeated (`--audience A --audience B`), switches without a
/// value (`--nonce-optional`), and positionals; after `--` every argument is a positional. A single `-` is a
/// positional (standard input). Every error carries the command's usage line.
///
///     let syntax = CommandLineSyntax(usage: "passkeyd migrate --from-sqlite FILE ...", options: ["--from-sqlite", "--secrets"])
///     let line = try syntax.parse(arguments)
///     let source = try line.required("--from-sqlite")
struct CommandLineSyntax {
    /// The usage line printed with every error, e.g. `passkeyd serve [--config FILE]`.
    let usage: String
    /// Options that take a value and may be given once.
    var options: Set<String> = []
    /// Options that take a value and may be given any number of times, in order.
    var repeatedOptions: Set<String> = []
    /// Options without a value.
    var switches: Set<String> = []
    /// How many positionals the command takes at most.
    var maximumPositionals = 0

    func parse(_ arguments: some Sequence<String>) throws(CommandLineError) -> ParsedCommandLine {
        var parsed = ParsedCommandLine(usage: usage)
        var remaining = Array(arguments)[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            guard !optionsEnded, argument.hasPrefix("--") else {
                guard parsed.positionals.count < maximumPositionals else {
                    throw error(.unexpectedArgument, maximumPositionals == 0 ? "takes no argument \(argument)" : "too many arguments at \(argument)")
                }
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            var inlineValue = parts.count == 2 ? String(parts[1]) : nil
            if switches.contains(name) {
                guard inlineValue == nil else { throw error(.unexpectedValue, "\(name) takes no value") }
                guard !parsed.switches.contains(name) else { throw error(.repeatedOption, "\(name) is given twice") }
                parsed.switches.insert(name)
                continue
            }
            guard options.contains(name) || repeatedOptions.contains(name) else { throw error(.unknownOption, "unknown option \(name)") }
            if inlineValue == nil, let next = remaining.first, !next.hasPrefix("--") {
                inlineValue = remaining.removeFirst()
            }
            guard let value = inlineValue else { throw error(.missingValue, "\(name) needs a value") }
            guard repeatedOptions.contains(name) || parsed.optionValues[name] == nil else { throw error(.repeatedOption, "\(name) is given twice") }
            parsed.optionValues[name, default: []].append(value)
        }
        return parsed
    }

    private func error(_ code: CommandLineError.Code, _ reason: String) -> CommandLineError {
        CommandLineError(code, reason, usage: usage)
    }
}
