import SharedTestSupport
import Testing

@testable import AuditCLI

/// `parseArguments` against a command shaped like `show`: one option with a value, one flag,
/// and `--help`, as every command declares it; then the options read through their declarations.
@Suite("Argument parser")
struct ArgumentParserTests {
    static let options: [any CommandOption] = [Options.session, Options.db, Options.isolated, Options.help]

    static func parse(_ arguments: [String], positionals: ClosedRange<Int> = 0...0) throws(UsageError)
        -> ParsedArguments
    {
        try parseArguments(arguments, options: options.map(\.spec), positionals: positionals, command: "show")
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
                values: repeated ?? options.mapValues { [$0] }, flags: flags, positionals: rest)
        }
    }

    static let accepted: [Accepted] = [
        Accepted([]),
        Accepted(["--session", "3"], options: ["--session": "3"]),
        Accepted(["--session=3"], options: ["--session": "3"]),
        // Only the first `=` splits: the rest is the value.
        Accepted(["--db=a=b.sqlite"], options: ["--db": "a=b.sqlite"]),
        Accepted(["--session="], options: ["--session": ""]),
        // Every occurrence is kept, in order: the last one is the value, all are a repeated option's.
        Accepted(["--session", "1", "--session=2"], repeated: ["--session": ["1", "2"]]),
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
        try expectEqual(Self.parse(example.arguments, positionals: example.positionals), example.expected)
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
        expectEqual("\(UsageError(message: "option '--x' takes no value"))", "option '--x' takes no value")
    }

    // MARK: reading through the declarations

    @Test("an option reads as its last value, converted; nil when not given")
    func readsOptions() throws {
        try expectEqual(Self.parse(["--session", "1", "--session=2"])[Options.session], 2)
        #expect(try Self.parse([])[Options.session] == nil)
        try expectEqual(Self.parse(["--db", "a.sqlite"])[Options.db], "a.sqlite")
        #expect(throws: UsageError(message: "--session takes a positive integer, not 'one'")) {
            try Self.parse(["--session", "one"])[Options.session]
        }
    }

    @Test("a flag reads as whether it was given; has() tells whether anything was")
    func readsFlags() throws {
        let parsed = try Self.parse(["--isolated", "--session", "zero"])
        #expect(parsed[Options.isolated])
        #expect(!parsed[Options.help])
        #expect(parsed.has(Options.isolated) && parsed.has(Options.session) && !parsed.has(Options.db))
    }

    @Test("a repeated option reads as every value, in order")
    func readsRepeatedOptions() throws {
        let options = [Options.label.spec]
        let parsed = try parseArguments(
            ["--label", "device=iPad", "--label=branch=main"], options: options, positionals: 0...0, command: "sessions"
        )
        try expectEqual(parsed[Options.label].map { "\($0.key)=\($0.value)" }, ["device=iPad", "branch=main"])
        #expect(try ParsedArguments()[Options.label].isEmpty)
        let bad = try parseArguments(["--label", "x"], options: options, positionals: 0...0, command: "sessions")
        #expect(throws: UsageError(message: "--label takes KEY=VALUE (a key of letters, digits, _ . -), not 'x'")) {
            try bad[Options.label]
        }
    }

    @Test("a required option names itself and its placeholder when missing")
    func requiredOptions() throws {
        #expect(throws: UsageError(message: "--session N is required")) { try Self.parse([]).required(Options.session) }
        try expectEqual(Self.parse(["--session", "7"]).required(Options.session), 7)
    }

    @Test("withHelp changes the help line only: the name and the conversion stay")
    func withHelp() throws {
        let narrower = Options.session.withHelp("the session to show")
        expectEqual(narrower.spec, OptionSpec(name: "--session", value: "N", help: "the session to show"))
        #expect(throws: UsageError(message: "--session takes a positive integer, not '0'")) {
            try narrower.value(of: "0")
        }
    }

    @Test("a choice lists its words as the placeholder and in its message")
    func choices() throws {
        expectEqual(Options.vetoed.spec.value, "yes|no")
        try expectEqual(Options.vetoed.value(of: "no"), false)
        #expect(throws: UsageError(message: "--kind takes input or callback, not 'touch'")) {
            try Options.kind.value(of: "touch")
        }
    }

    @Test("integers: positive, at most a bound, or a count in a range")
    func integers() throws {
        try expectEqual(Options.jobs.value(of: "256"), 256)
        #expect(throws: UsageError(message: "--jobs takes at most 256, not 257")) { try Options.jobs.value(of: "257") }
        try expectEqual(Options.noiseRuns.value(of: "100"), 100)
        #expect(throws: UsageError(message: "--noise-runs takes at most 100, not 101")) {
            try Options.noiseRuns.value(of: "101")
        }
        #expect(throws: UsageError(message: "--noise-runs takes at most 100, not 100000000")) {
            try Options.noiseRuns.value(of: "100000000")
        }
        #expect(throws: UsageError(message: "--steps takes an integer from 1 to 10000, not '10001'")) {
            try Options.steps.value(of: "10001")
        }
        try expectEqual(Options.maxTests.value(of: "100000"), 100_000)
        #expect(throws: UsageError(message: "--max-tests takes at most 100000, not 100001")) {
            try Options.maxTests.value(of: "100001")
        }
        #expect(throws: UsageError(message: "--keep-last takes at most 1000000000, not 9000000000")) {
            try Options.keepLast.value(of: "9000000000")
        }
    }

    /// Options are read by name: a command that declared one name twice would read one declaration
    /// through the other's conversion.
    @Test("no command declares an option name twice")
    func namesAreUnique() {
        for command in AuditCommandLine.auditctl.commands {
            let names = command.allOptions.map(\.name)
            expectEqual(Set(names).count, names.count, "\(command.name): \(names)")
        }
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

    /// Every command's examples, in the names of `auditctl` and of a runner with one delegate of
    /// its own (and a name a shell must have quoted).
    @Test(arguments: AuditCommandLine.auditctl.commands.map(\.name))
    func everyExampleParses(_ name: String) throws {
        let command = try #require(AuditCommandLine.auditctl.commands.first { $0.name == name })
        #expect(!command.discussion.isEmpty)
        #expect(command.discussion.split(separator: "\n").allSatisfy { $0.count <= 100 })
        let runners = [AuditCommandLine.auditctl, AuditCommandLine.madeUp(delegate: "our form")]
        let examples = runners.flatMap { command.examples(ExampleNames(registry: $0.registry, catalog: $0.catalog)) }
        #expect((2...3).contains(examples.count / runners.count), "\(examples)")
        for example in examples {
            let words = Self.words(example)
            expectEqual(words.first, name, "\(example)")
            let parsed = try parseArguments(
                Array(words.dropFirst()), options: command.allOptions, positionals: command.positionals,
                command: name)
            // A format the command does not write is refused here.
            _ = try parsed[command.formatOption]
        }
        let help = command.help(for: .auditctl)
        #expect(help.contains("\n\n" + command.discussion + "\n"))
        for example in examples.prefix(examples.count / runners.count) {
            #expect(help.contains("\n  auditctl \(example)"))
        }
    }

    /// The command-line reference article is checked against the same declarations: it names every
    /// command and every option each one declares.
    @Test func theReferenceNamesEveryCommandAndOption() throws {
        let reference = try String(
            contentsOf: Sandbox.packageRoot.appendingPathComponent(
                "Sources/AuditCore/AuditCore.docc/CommandLineReference.md"),
            encoding: .utf8)
        for command in AuditCommandLine.auditctl.commands {
            #expect(reference.contains("`\(command.name)"), "\(command.name)")
            for option in command.options {
                #expect(reference.contains(option.name), "\(command.name) \(option.name)")
            }
        }
    }
}
