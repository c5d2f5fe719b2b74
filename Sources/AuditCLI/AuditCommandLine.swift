import AuditCore
import Foundation

/// The `auditctl` command line, as a library: build your own tool with your own delegates and
/// widget kinds by passing your registry and catalog, in a `main.swift` of one line:
///
///     AuditCommandLine(registry: myRegistry, catalog: .builtIn.adding(Slider.kind)).main()
///
/// Its help shows the runner's own delegates in its examples. A command of the runner's own is
/// added with ``adding(_:)``, as `auditctl` adds `demo`.
public struct AuditCommandLine: Sendable {
    public var registry: DelegateRegistry
    /// The widget kinds this tool can read from scenarios, record, list and replay.
    public var catalog: WidgetCatalog
    public var environment: [String: String]
    /// The program name shown in usage lines.
    public var programName: String
    /// The commands this runner adds to the built-in ones (``adding(_:)``), listed after them.
    private(set) var extraCommands: [ExtraCommand] = []
    /// How `record` records: the defaults, or a smaller queue set by a test hook (`main()`).
    var recording = Recorder.Options()

    public init(
        registry: DelegateRegistry, catalog: WidgetCatalog,
        environment: [String: String] = ProcessInfo.processInfo.environment, programName: String = "auditctl"
    ) {
        self.registry = registry
        self.catalog = catalog
        self.environment = environment
        self.programName = programName
    }

    /// This command line with `command` too, after the built-in ones and those added before.
    ///
    /// A command named as another, or one that runs a delegate the registry does not have, makes
    /// every call fail with one line that says so.
    public func adding(_ command: ExtraCommand) -> AuditCommandLine {
        var commandLine = self
        commandLine.extraCommands.append(command)
        return commandLine
    }

    /// Runs with the process's arguments and exits with the command's status.
    public func main() -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        Self.configureSQLite(forCommand: arguments.first)
        if let text = environment[Self.stallVariable] {
            // A test that misspells the hook would otherwise race the recording it acts on.
            guard let seq = Int64(text), seq >= 0 else {
                FileHandle.standardError.write(
                    Data("\(programName): error: \(Self.stallVariable) takes an event number, not '\(text)'\n".utf8))
                exit(ExitStatus.failure)
            }
            Self.stallEvents(after: seq)
        }
        var commandLine = self
        if let text = environment[Self.queueVariable] {
            guard let events = Int(text), events > 0 else {
                FileHandle.standardError.write(
                    Data("\(programName): error: \(Self.queueVariable) takes a number of events, not '\(text)'\n".utf8))
                exit(ExitStatus.failure)
            }
            // A test hook: a recording's queue holds at most `events` entries, and a transaction
            // about as many events (the ReliabilityAndSecurity article), so that a test can stall
            // or kill a recording some transactions in without recording a long one.
            commandLine.recording.capacity = events
            commandLine.recording.batchSize = min(commandLine.recording.batchSize, events)
        }
        exit(commandLine.run(arguments, output: .standard))
    }

    /// The environment variables of the test hooks: writes stalled past an event (below), and the
    /// recording queue's capacity.
    static let stallVariable = "AUDITCTL_TEST_STALL_AFTER_EVENT"
    static let queueVariable = "AUDITCTL_TEST_QUEUE_CAPACITY"

    /// A test hook: the tests that act on a running recording stall its writes past an event they
    /// choose, and resume them with `SIGUSR1` (`StoreFaults.stallEvents(after:)`).
    private static func stallEvents(after seq: Int64) {
        signal(SIGUSR1, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
        source.setEventHandler { StoreFaults.resumeStalledEvents() }
        source.resume()
        resumeSource = source
        StoreFaults.whenStalled {
            FileHandle.standardError.write(
                Data("auditctl: test hook: writes stalled past event \(seq) until SIGUSR1\n".utf8))
        }
        StoreFaults.stallEvents(after: seq)
    }

    /// Kept for the process's life; set once, before any command runs.
    nonisolated(unsafe) private static var resumeSource: (any DispatchSourceSignal)?

    /// Configures SQLite for a process that runs `command`, before it opens a database: memory
    /// statistics off for every command but `query`, whose heap limit needs them (see
    /// `AuditStore.turnOffSQLiteMemoryStatistics()`).
    static func configureSQLite(forCommand command: String?) {
        if command != Command.query.name { AuditStore.turnOffSQLiteMemoryStatistics() }
    }

    /// Runs one command line and returns its exit status: 0 success or identical, 1 differences
    /// found, 2 bad input or failure (with one line on standard error).
    public func run(_ arguments: [String], output: Output) -> Int32 {
        if let problem = extraCommandProblem { return fail(problem, output) }
        guard let name = arguments.first else {
            return fail("no command given; run '\(programName) --help' for the list", output)
        }
        if name == Options.help.name || name == "-h" || name == "help" {
            if arguments.count > 1, let command = commands.first(where: { $0.name == arguments[1] }) {
                output.line(command.help(for: self))
            } else {
                output.line(usage)
            }
            return ExitStatus.success
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            return fail("unknown command '\(name)'; run '\(programName) --help' for the list", output)
        }
        do {
            let parsed = try parseArguments(
                Array(arguments.dropFirst()), options: command.allOptions, positionals: command.positionals,
                command: command.name, programName: programName)
            if parsed[Options.help] {
                output.line(command.help(for: self))
                return ExitStatus.success
            }
            let invocation = try Invocation(parsed: parsed, command: command, tool: self, output: output)
            return try command.run(invocation)
        } catch {
            return fail(message(for: error), output)
        }
    }

    /// What `error` says, and for a missing database or session what to run next, in this
    /// runner's name (the library's errors name no command).
    private func message(for error: any Error) -> String {
        switch error as? StoreError {
        case .noDatabase?: "\(error); record a session first (\(programName) record --scenario FILE)"
        case .unknownSession?: "\(error) (\(programName) sessions lists them)"
        default: "\(error)"
        }
    }

    /// What is wrong with the commands this runner adds: one named as another, or one that runs a
    /// delegate the registry does not have. Nil when nothing is.
    private var extraCommandProblem: String? {
        var names = Set(Self.builtInCommands.map(\.name))
        for extra in extraCommands {
            let name = extra.command.name
            guard names.insert(name).inserted else {
                return "the command '\(name)' is added but \(programName) has one of that name; add it once, "
                    + "under a name of its own"
            }
            for delegate in extra.delegates {
                do {
                    _ = try registry.entry(named: delegate)
                } catch {
                    return "the added command '\(name)' runs an \(error); register it before adding the command"
                }
            }
        }
        return nil
    }

    private func fail(_ message: String, _ output: Output) -> Int32 {
        output.diagnostic("\(programName): error: \(message.asOneVisibleLine)")
        return ExitStatus.failure
    }

    var usage: String {
        let width = commands.map(\.name.count).max() ?? 0
        let lines = commands.map {
            "  \($0.name.padding(toLength: width, withPad: " ", startingAt: 0))  \($0.summary)"
        }
        return """
            usage: \(programName) COMMAND [OPTIONS]

            Audits widget delegates: records every callback into SQLite, replays sessions against a changed
            delegate to find regressions, diffs sessions, shows and queries them.

            commands:
            \(lines.joined(separator: "\n"))

            Every command takes --db PATH (default ./audit.sqlite, or $AUDITCTL_DB), --format and --help.
            Exit status: 0 success, 1 differences found, 2 bad input or failure.
            """
    }

    /// Every command of this runner: the built-in ones, then those it adds.
    var commands: [Command] { Self.builtInCommands + extraCommands.map(\.command) }

    static let builtInCommands: [Command] = [
        .record, .replay, .diff, .minimize, .explore, .sessions, .show, .search, .report, .coverage, .query, .export,
        .import, .merge, .prune, .delegates, .callbacks,
    ]
}

extension AuditCommandLine {
    /// A command a runner adds to the built-in ones with ``AuditCommandLine/adding(_:)``, made by one
    /// of the factories here (``demo(_:scenario:delegate:candidate:)``).
    public struct ExtraCommand: Sendable {
        let command: Command
        /// The registered delegates it runs, checked at every call of the command line.
        let delegates: [String]
    }
}

enum ExitStatus {
    static let success: Int32 = 0
    static let differences: Int32 = 1
    static let failure: Int32 = 2
}

/// One subcommand: its options, how many positional arguments it takes, and what it does.
struct Command: Sendable {
    let name: String
    let summary: String
    let arguments: String
    let options: [any CommandOption]
    let positionals: ClosedRange<Int>
    let formats: [Format]
    /// What the command does, for its `--help`, a few lines of at most 100 characters.
    var discussion = ""
    /// Command lines that use it, without the program's name, for its `--help`, in the runner's
    /// own names; each is parsed by a test against the options declared here, so they cannot drift.
    var examples: @Sendable (ExampleNames) -> [String] = { _ in [] }
    let run: @Sendable (Invocation) throws -> Int32

    /// `--format`, among the formats this command writes.
    var formatOption: Option<Format> { Options.format(formats, command: name) }

    /// What the parser and `--help` take: the command's own options, then every command's.
    var allOptions: [OptionSpec] {
        (options + [Options.db, formatOption, Options.help]).map(\.spec)
    }

    /// Its `--help` in `tool`'s program name, the examples in its delegates' names.
    func help(for tool: AuditCommandLine) -> String {
        let program = tool.programName
        let examples = self.examples(ExampleNames(registry: tool.registry, catalog: tool.catalog))
        // Each option's left column: its name, and what it takes.
        let lefts: [String] = allOptions.map { option in option.name + (option.value.map { " " + $0 } ?? "") }
        let width = lefts.map(\.count).max() ?? 0
        let lines = zip(allOptions, lefts).map { option, left in
            "  \(left.padding(toLength: width, withPad: " ", startingAt: 0))  \(option.help)"
        }
        return """
            usage: \(program) \(name)\(arguments.isEmpty ? "" : " " + arguments) [OPTIONS]

            \(summary)
            \(discussion.isEmpty ? "" : "\n" + discussion + "\n")
            options:
            \(lines.joined(separator: "\n"))
            \(examples.isEmpty ? "" : "\nexamples:\n" + examples.map { "  \(program) \($0)" }.joined(separator: "\n"))
            """
    }
}

/// The runner's own names that help examples show, so that no runner's help names another's
/// delegates: its first registered delegate, the next as a candidate (the first again when it
/// registers one), and the first input its catalog generates. Each is a single shell word.
struct ExampleNames: Sendable {
    var delegate: String
    var candidate: String
    var input: String

    init(registry: DelegateRegistry, catalog: WidgetCatalog) {
        let names = registry.entries.map { Self.shellWord($0.name) }
        delegate = names.first ?? "NAME"
        candidate = names.dropFirst().first ?? delegate
        input = catalog.kinds.lazy.flatMap(\.generators).first.map { Self.shellWord($0.input) } ?? "INPUT"
    }

    /// `text` as one word a shell reads back as it is: quoted unless it is letters, digits and `._-`.
    static func shellWord(_ text: String) -> String {
        guard text.isEmpty || !text.allSatisfy(plain.contains) else { return text }
        return "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    private static let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
}

/// A parsed command line, ready to run: the database path and format resolved, the options read
/// through their declarations (`invocation[Options.session]`).
struct Invocation: ReadsOptions {
    let parsed: ParsedArguments
    let databasePath: String
    let format: Format
    let registry: DelegateRegistry
    let catalog: WidgetCatalog
    let output: Output
    let programName: String
    let recording: Recorder.Options

    init(parsed: ParsedArguments, command: Command, tool: AuditCommandLine, output: Output) throws(UsageError) {
        self.parsed = parsed
        databasePath =
            try parsed[Options.db] ?? tool.environment["AUDITCTL_DB"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "audit.sqlite"
        guard !databasePath.isEmpty else { throw UsageError(message: "\(Options.db.name) needs a path") }
        for option in command.options { try option.checkUpFront(parsed) }
        format = try parsed[command.formatOption] ?? command.formats[0]
        registry = tool.registry
        catalog = tool.catalog
        self.output = output
        programName = tool.programName
        recording = tool.recording
    }

    /// Refuses a `--label` filter that selects none of the sessions: a check or a sum of nothing
    /// is not a result.
    func checkLabelsSelect(_ selected: Int) throws(UsageError) {
        let labels = try labels()
        guard selected == 0, !labels.isEmpty else { return }
        let given = labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        throw UsageError(message: "no recording has the labels \(given) (\(programName) sessions lists them)")
    }

    /// The `--label key=value` options, as labels (given more than once, each key once).
    func labels() throws(UsageError) -> [String: String] {
        var labels: [String: String] = [:]
        for (key, value) in try self[Options.label] {
            guard labels.updateValue(value, forKey: key) == nil else {
                throw UsageError(message: "\(Options.label.name) \(key) is given twice")
            }
        }
        return labels
    }

    /// Whether `session` has every label `labels()` asks for.
    func matchesLabels(_ session: SessionSummary) throws(UsageError) -> Bool {
        try labels().allSatisfy { session.labels[$0.key] == $0.value }
    }
}
