import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// Help, database selection and usage mistakes, through the built `auditctl`.
@Suite("auditctl command line")
struct CommandLineTests {
    static let commands = ["record", "explore", "sessions", "show", "query", "delegates", "callbacks", "demo"]

    @Test("COMMAND --help and -h print the command's usage on stdout", arguments: commands)
    func commandHelp(command: String) throws {
        let sandbox = try Sandbox()
        for flag in ["--help", "-h"] {
            let run = try sandbox.run([command, flag])
            expectEqual(run.status, 0, "\(run)")
            expectEqual(run.stderr, "")
            #expect(run.stdout.hasPrefix("usage: auditctl \(command) "), "\(run)")
            for option in ["--db PATH", "--format ", "--help"] {
                #expect(run.stdout.contains("\n  \(option)"), "\(option) in \(run)")
            }
        }
        // `auditctl help COMMAND` prints the same text.
        let help = try sandbox.run(["help", command])
        expectEqual(help.status, 0)
        expectEqual(help.stdout, (try sandbox.run([command, "--help"])).stdout)
        // Help opens no database and creates nothing, even with options that would.
        let withOptions = try sandbox.run([command, "--db", "never.sqlite", "--help"])
        expectEqual(withOptions.status, 0)
        #expect(try sandbox.listing().isEmpty)
    }

    @Test("record's help names its own options")
    func recordHelp() throws {
        let run = try Sandbox().run(["record", "--help"])
        #expect(run.stdout.hasPrefix("usage: auditctl record --scenario FILE [OPTIONS]\n"))
        for option in ["--scenario FILE", "--delegate NAME", "--name LABEL", "--format text|json"] {
            #expect(run.stdout.contains("\n  \(option) "), "\(option)")
        }
    }

    @Test("--help, -h and help list every command", arguments: [["--help"], ["-h"], ["help"]])
    func toolHelp(arguments: [String]) throws {
        let run = try Sandbox().run(arguments)
        expectEqual(run.status, 0, "\(run)")
        expectEqual(run.stderr, "")
        #expect(run.stdout.hasPrefix("usage: auditctl COMMAND [OPTIONS]\n"))
        for command in Self.commands {
            #expect(run.stdout.contains("\n  \(command) "), "\(command)")
        }
    }

    // MARK: which database

    @Test func defaultDatabaseIsAuditSqliteInTheWorkingDirectory() throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        try expectEqual(sandbox.run(["record", "--scenario", "checkout.json"]).status, 0)
        try expectEqual(sandbox.listing(), ["checkout.json", "audit.sqlite"])
        try expectEqual(sandbox.run(["sessions", "--format", "csv"]).stdoutLines.count, 3)
    }

    @Test func databaseOptionAndEnvironment() throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        let record = ["record", "--scenario", "checkout.json"]
        // --db PATH, in both spellings.
        try expectEqual(sandbox.run(record + ["--db", "flag.sqlite"]).status, 0)
        try expectEqual(sandbox.run(record + ["--db=flag.sqlite"]).stdout, "2\n")
        // AUDITCTL_DB.
        let environment = ["AUDITCTL_DB": sandbox.path("env.sqlite")]
        try expectEqual(sandbox.run(record, environment: environment).stdout, "1\n")
        // --db wins over AUDITCTL_DB.
        try expectEqual(sandbox.run(record + ["--db", "flag.sqlite"], environment: environment).stdout, "3\n")
        // An empty AUDITCTL_DB means the default.
        try expectEqual(sandbox.run(record, environment: ["AUDITCTL_DB": ""]).stdout, "1\n")
        try expectEqual(
            sandbox.listing(),
            [
                "checkout.json", "flag.sqlite", "env.sqlite", "audit.sqlite",
            ])

        // Every reading command follows the same rule.
        let counts: [(arguments: [String], environment: [String: String], sessions: Int)] = [
            (["--db", "flag.sqlite"], [:], 3), ([], environment, 1), (["--db", "flag.sqlite"], environment, 3),
            ([], [:], 1),
        ]
        for (arguments, environment, sessions) in counts {
            let list = try sandbox.run(["sessions", "--format", "csv"] + arguments, environment: environment)
            expectEqual(parseCSV(list.stdout).count, sessions + 1, "\(arguments) \(environment)")
            let query = try sandbox.run(
                ["query", "select count(*) as n from sessions"] + arguments, environment: environment)
            expectEqual(query.stdout, "n\n\(sessions)\n", "\(arguments) \(environment)")
            let show = try sandbox.run(
                ["show", "--session", "\(sessions)", "--format", "csv"] + arguments, environment: environment)
            expectEqual(show.status, 0, "\(show)")
        }
    }

    @Test func emptyDatabaseOptionIsRefused() throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        expectError(try sandbox.run(["record", "--scenario", "checkout.json", "--db", ""]), "--db needs a path")
        try expectEqual(sandbox.listing(), ["checkout.json"])
    }

    @Test func readingCommandsNeedADatabase() throws {
        let sandbox = try Sandbox()
        let message = "no database at audit.sqlite; record a session first (auditctl record --scenario FILE)"
        expectError(try sandbox.run(["sessions"]), message)
        expectError(try sandbox.run(["show", "--session", "1"]), message)
        expectError(try sandbox.run(["query", "select 1"]), message)
        #expect(try sandbox.listing().isEmpty, "reading never creates the database")
    }

    // MARK: usage mistakes

    struct Mistake: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let mistakes: [Mistake] = [
        Mistake(arguments: ["bogus"], message: "unknown command 'bogus'; run 'auditctl --help' for the list"),
        Mistake(
            arguments: ["--db", "x.sqlite"], message: "unknown command '--db'; run 'auditctl --help' for the list"),
        Mistake(
            arguments: ["sessions", "--bogus"],
            message: "unknown option '--bogus' for 'sessions'; see 'auditctl sessions --help'"),
        Mistake(
            arguments: ["show", "--session"],
            message: "option '--session' needs a value (--session N); see 'auditctl show --help'"),
        Mistake(
            arguments: ["sessions", "extra"],
            message: "'sessions' takes 0 arguments, got 1; see 'auditctl sessions --help'"),
        Mistake(arguments: ["query"], message: "'query' takes 1 argument, got 0; see 'auditctl query --help'"),
        Mistake(
            arguments: ["query", "select 1", "select 2"],
            message: "'query' takes 1 argument, got 2; see 'auditctl query --help'"),
        Mistake(arguments: ["show"], message: "--session N is required"),
        Mistake(arguments: ["show", "--session", "0"], message: "--session takes a positive integer, not '0'"),
        Mistake(arguments: ["show", "--session", "one"], message: "--session takes a positive integer, not 'one'"),
        Mistake(arguments: ["record"], message: "--scenario FILE is required"),
        Mistake(
            arguments: ["sessions", "--format", "xml"],
            message: "'sessions' has no format 'xml' (choose text, json, csv)"),
        Mistake(
            arguments: ["record", "--scenario", "x.json", "--format", "csv"],
            message: "'record' has no format 'csv' (choose text, json)"),
        Mistake(arguments: ["demo", "--format", "csv"], message: "'demo' has no format 'csv' (choose text, json)"),
        Mistake(
            arguments: ["query", "select 1", "--timeout", "0"],
            message: "--timeout takes a number of seconds up to 300, not '0'"),
        Mistake(
            arguments: ["query", "select 1", "--timeout", "soon"],
            message: "--timeout takes a number of seconds up to 300, not 'soon'"),
    ]

    @Test("usage mistakes exit 2 with one line and touch nothing", arguments: mistakes)
    func usageMistake(_ mistake: Mistake) throws {
        let sandbox = try Sandbox()
        expectError(try sandbox.run(mistake.arguments), mistake.message)
        #expect(try sandbox.listing().isEmpty)
    }

    @Test("no command at all is a one-line error")
    func noArguments() throws {
        let run = try Sandbox().run([])
        expectEqual(run.status, 2)
        expectError(run, "no command given; run 'auditctl --help' for the list")
    }
}
