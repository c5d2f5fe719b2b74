import Testing

@testable import AuditCLI

/// `parseArguments` against a command shaped like `show`: one option with a value, one flag,
/// and `--help`, as every command declares it.
@Suite("Argument parser")
struct ArgumentParserTests {
    static let options: [OptionSpec] = [
        .option("--session", "N", "the session"),
        .option("--db", "PATH", "the database"),
        .flag("--isolated", "a flag"),
        .flag("--help", "show this help"),
    ]

    static func parse(_ arguments: [String], positionals: ClosedRange<Int> = 0...0) throws(UsageError)
        -> ParsedArguments
    {
        try parseArguments(arguments, options: options, positionals: positionals, command: "show")
    }

    struct Accepted: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let positionals: ClosedRange<Int>
        let expected: ParsedArguments
        var testDescription: String { arguments.isEmpty ? "(nothing)" : arguments.joined(separator: " ") }

        init(
            _ arguments: [String], _ positionals: ClosedRange<Int> = 0...0, options: [String: String] = [:],
            repeated: [String: [String]]? = nil, flags: Set<String> = [], rest: [String] = []
        ) {
            self.arguments = arguments
            self.positionals = positionals
            expected = ParsedArguments(
                options: options, repeated: repeated ?? options.mapValues { [$0] }, flags: flags, positionals: rest)
        }
    }

    static let accepted: [Accepted] = [
        Accepted([]),
        Accepted(["--session", "3"], options: ["--session": "3"]),
        Accepted(["--session=3"], options: ["--session": "3"]),
        // Only the first `=` splits: the rest is the value.
        Accepted(["--db=a=b.sqlite"], options: ["--db": "a=b.sqlite"]),
        Accepted(["--session="], options: ["--session": ""]),
        // The last occurrence wins; every one is kept, in order, for options that repeat (--label).
        Accepted(["--session", "1", "--session=2"], options: ["--session": "2"], repeated: ["--session": ["1", "2"]]),
        // A value is taken as it is, even when it looks like an option.
        Accepted(["--session", "-1"], options: ["--session": "-1"]),
        Accepted(["--db", "--isolated"], options: ["--db": "--isolated"]),
        Accepted(["--isolated"], flags: ["--isolated"]),
        Accepted(
            ["--isolated", "--session", "4", "--db", "x.sqlite"], options: ["--session": "4", "--db": "x.sqlite"],
            flags: ["--isolated"]),
        Accepted(["--help"], flags: ["--help"]),
        Accepted(["-h"], flags: ["--help"]),
        // With --help the positional count is not checked: help wins.
        Accepted(["one", "two", "-h"], flags: ["--help"], rest: ["one", "two"]),
        Accepted(["select 1"], 1...1, rest: ["select 1"]),
        Accepted(["-"], 1...1, rest: ["-"]),
        Accepted(["--", "--session", "-h"], 2...2, rest: ["--session", "-h"]),
        Accepted(["a", "--isolated", "b"], 1...2, flags: ["--isolated"], rest: ["a", "b"]),
        Accepted(["--session", "5", "--", "--"], 1...1, options: ["--session": "5"], rest: ["--"]),
    ]

    @Test("accepted command lines", arguments: accepted)
    func accepts(_ example: Accepted) throws {
        #expect(try Self.parse(example.arguments, positionals: example.positionals) == example.expected)
    }

    struct Refused: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let positionals: ClosedRange<Int>
        let message: String
        var testDescription: String { arguments.isEmpty ? "(nothing)" : arguments.joined(separator: " ") }

        init(_ arguments: [String], _ positionals: ClosedRange<Int>, _ message: String) {
            self.arguments = arguments
            self.positionals = positionals
            self.message = message
        }

        init(_ arguments: [String], _ message: String) {
            self.init(arguments, 0...0, message)
        }
    }

    static let hint = "see 'auditctl show --help'"

    static let refused: [Refused] = [
        Refused(["--bogus"], "unknown option '--bogus' for 'show'; \(hint)"),
        Refused(["--bogus=1"], "unknown option '--bogus' for 'show'; \(hint)"),
        Refused(["-x"], "unknown option '-x' for 'show'; \(hint)"),
        // Options are matched whole, never by prefix.
        Refused(["--sess", "1"], "unknown option '--sess' for 'show'; \(hint)"),
        // An unknown option is reported even when --help comes first.
        Refused(["--help", "--bogus"], "unknown option '--bogus' for 'show'; \(hint)"),
        Refused(["--session"], "option '--session' needs a value (--session N); \(hint)"),
        Refused(["--isolated", "--db"], "option '--db' needs a value (--db PATH); \(hint)"),
        Refused(["--isolated=yes"], "option '--isolated' takes no value; \(hint)"),
        Refused(["--help="], "option '--help' takes no value; \(hint)"),
        Refused(["extra"], "'show' takes 0 arguments, got 1; \(hint)"),
        Refused(["--", "--session"], "'show' takes 0 arguments, got 1; \(hint)"),
        Refused([], 1...1, "'show' takes 1 argument, got 0; \(hint)"),
        Refused(["a", "b"], 1...1, "'show' takes 1 argument, got 2; \(hint)"),
        Refused(["a", "b", "c"], 1...2, "'show' takes 1 to 2 arguments, got 3; \(hint)"),
        Refused(["a", "b"], 3...3, "'show' takes 3 arguments, got 2; \(hint)"),
    ]

    @Test("refused command lines", arguments: refused)
    func refuses(_ example: Refused) {
        #expect(throws: UsageError(message: example.message)) {
            try Self.parse(example.arguments, positionals: example.positionals)
        }
    }

    @Test("the message is the error's description")
    func messageIsDescription() {
        #expect("\(UsageError(message: "option '--x' takes no value"))" == "option '--x' takes no value")
    }
}

/// Every command's `--help` stands alone: a discussion and examples, and every example is a
/// command line its parser takes (options it declares, values where they need one, positionals
/// in number, a format it writes), so help cannot drift from the options.
@Suite("Help: discussion and examples")
struct CommandHelpTests {
    /// An example's words: spaces split them, single quotes group them (as a shell would).
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quoted = false
        for character in line {
            if character == "'" {
                quoted.toggle()
            } else if character == " " && !quoted {
                if !word.isEmpty { words.append(word) }
                word = ""
            } else {
                word.append(character)
            }
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    @Test(arguments: AuditCommandLine.commands.map(\.name))
    func everyExampleParses(_ name: String) throws {
        let command = try #require(AuditCommandLine.commands.first { $0.name == name })
        #expect(!command.discussion.isEmpty)
        #expect((2...3).contains(command.examples.count), "\(command.examples)")
        #expect(command.discussion.split(separator: "\n").allSatisfy { $0.count <= 100 })
        for example in command.examples {
            let words = Self.words(example)
            #expect(words.first == name, "\(example)")
            let parsed = try parseArguments(
                Array(words.dropFirst()), options: command.allOptions, positionals: command.positionals,
                command: name)
            if let format = parsed.options["--format"] {
                #expect(command.formats.map(\.rawValue).contains(format), "\(example)")
            }
        }
        let help = command.help("auditctl")
        #expect(help.contains("\n\n" + command.discussion + "\n"))
        for example in command.examples { #expect(help.contains("\n  auditctl \(example)")) }
    }

    /// The command-line reference article is checked against the same declarations: it names every
    /// command and every option each one declares.
    @Test func theReferenceNamesEveryCommandAndOption() throws {
        let reference = try String(
            contentsOf: Sandbox.packageRoot.appendingPathComponent(
                "Sources/AuditCore/AuditCore.docc/CommandLineReference.md"),
            encoding: .utf8)
        for command in AuditCommandLine.commands {
            #expect(reference.contains("`\(command.name)"), "\(command.name)")
            for option in command.options {
                #expect(reference.contains(option.name), "\(command.name) \(option.name)")
            }
        }
    }
}
