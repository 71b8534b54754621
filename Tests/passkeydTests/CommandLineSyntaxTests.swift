import Testing

@testable import passkeyd

/// The one parser of passkeyd's command lines: options with values, repeated options, switches, positionals, `--`,
/// and an error naming the argument (with the command's usage line) for everything else.
@Suite struct CommandLineSyntaxTests {
    static let syntax = CommandLineSyntax(
        usage: "passkeyd example --file FILE [--name N ...] [--quiet] [INPUT]",
        options: ["--file"],
        repeatedOptions: ["--name"],
        switches: ["--quiet"],
        maximumPositionals: 1
    )

    static func failure(_ arguments: [String]) -> CommandLineError? {
        do {
            _ = try syntax.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    @Test func valuesRepeatsSwitchesAndPositionals() throws {
        let line = try Self.syntax.parse(["--name", "a", "--file", "f.json", "--quiet", "--name=b", "input"])
        #expect(line.value("--file") == "f.json")
        #expect(try line.required("--file") == "f.json")
        #expect(line.values("--name") == ["a", "b"])
        #expect(line.isSet("--quiet"))
        #expect(line.positionals == ["input"])
    }

    @Test func absentOptionsAreEmpty() throws {
        let line = try Self.syntax.parse([])
        #expect(line.value("--file") == nil)
        #expect(line.values("--name").isEmpty)
        #expect(!line.isSet("--quiet"))
        #expect(line.positionals.isEmpty)
        #expect(throws: CommandLineError(.missingOption, "--file is required", usage: Self.syntax.usage)) { try line.required("--file") }
    }

    @Test func equalsFormAndDashDash() throws {
        let line = try Self.syntax.parse(["--file=--odd=name", "--", "--not-an-option"])
        #expect(line.value("--file") == "--odd=name")
        #expect(line.positionals == ["--not-an-option"])
        #expect(try Self.syntax.parse(["-"]).positionals == ["-"], "a lone - is standard input")
        #expect(try Self.syntax.parse(["--file="]).value("--file") == "")
    }

    @Test(
        arguments: [
            (["--unknown"], CommandLineError.Code.unknownOption, "unknown option --unknown"),
            (["--unknown=1"], .unknownOption, "unknown option --unknown"),
            (["--file"], .missingValue, "--file needs a value"),
            (["--file", "--quiet"], .missingValue, "--file needs a value"),
            (["--file", "a", "--file", "b"], .repeatedOption, "--file is given twice"),
            (["--quiet", "--quiet"], .repeatedOption, "--quiet is given twice"),
            (["--quiet=yes"], .unexpectedValue, "--quiet takes no value"),
            (["one", "two"], .unexpectedArgument, "too many arguments at two"),
        ] as [([String], CommandLineError.Code, String)]
    )
    func errorsNameTheArgumentAndCarryTheUsage(arguments: [String], code: CommandLineError.Code, reason: String) throws {
        let error = try #require(Self.failure(arguments))
        #expect(error.code == code)
        #expect(error.reason == reason)
        #expect(error.description == reason + "\nusage: " + Self.syntax.usage)
    }

    @Test func aCommandWithoutPositionalsRefusesOne() throws {
        let error = try #require(throws: CommandLineError.self) { try ServeCommand.syntax.parse(["config.json"]) }
        #expect(error.code == .unexpectedArgument)
        #expect(error.reason == "takes no argument config.json")
    }

    @Test func codesAreCommandLineCodes() {
        #expect(CommandLineError.Code.allCases.allSatisfy { $0.rawValue.hasPrefix("commandLine.") })
    }
}
