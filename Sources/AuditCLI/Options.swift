import AuditCore
import Foundation

/// The command-line options, each declared once: its name, placeholder, help, and how its text
/// becomes a value. A command lists the ones it takes (`withHelp` when its help line says more)
/// and reads them through the same constants: `invocation[Options.session]`.
///
/// The options several commands take are here; an option of one command only is declared beside
/// it, in an extension of this namespace.
enum Options {
    // MARK: every command's

    /// `--db PATH`; `Invocation` resolves its default.
    static let db = Option<String>("--db", "PATH", "the database (default ./audit.sqlite, or $AUDITCTL_DB)")

    /// `--help`, also `-h`.
    static let help = Flag("--help", "show this help")

    /// `--format`, among the formats a command writes, the first its default.
    static func format(_ formats: [Format], command: String) -> Option<Format> {
        let names = formats.map(\.rawValue)
        return Option("--format", names.joined(separator: "|"), "output format (default \(names[0]))") {
            text, _ throws(UsageError) in
            guard let format = Format(rawValue: text), formats.contains(format) else {
                throw UsageError(
                    message: "'\(command)' has no format '\(text)' (choose \(names.joined(separator: ", ")))")
            }
            return format
        }
    }

    // MARK: several commands'

    static let session = Option<Int64>.positiveInteger("--session", "N", "only this session")

    static let delegate = Option<String>("--delegate", "NAME", "the registered delegate to replay against")

    static let scenario = Option<String>(
        "--scenario", "FILE", "the scenario to run (JSON; see the ScenarioFormat article)")

    /// `--label KEY=VALUE`, each a key and its value (`Invocation.labels()` gathers them).
    static let label = RepeatedOption<(key: String, value: String)>(
        "--label", "KEY=VALUE", "only sessions with this label; repeatable (all must match)"
    ) { text, name throws(UsageError) in
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty,
            parts[0].allSatisfy({ $0.isLetter || $0.isNumber || "_.-".contains($0) })
        else {
            throw UsageError(message: "\(name) takes KEY=VALUE (a key of letters, digits, _ . -), not '\(text)'")
        }
        return (String(parts[0]), String(parts[1]))
    }

    /// `--shard I/N`: a job's part of the sessions.
    static let shard = Option<SessionShard>(
        "--shard", "I/N", "only the I-th of N disjoint parts of the sessions (by UUID), for CI jobs"
    ) { text, name throws(UsageError) in
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
            (1...count).contains(index)
        else {
            throw UsageError(
                message: "\(name) takes I/N with 1 ≤ I ≤ N (2/4: the second of four parts), not '\(text)'")
        }
        return SessionShard(index: index, count: count)
    }

    /// `--html FILE` of `report`, `diff`, `replay` and `coverage` (`HTMLOutput` writes it).
    static let html = Option<String>.outputFile(
        "--html", "also write the timeline as one self-contained HTML page to FILE", what: HTMLOutput.what)

    /// `--output FILE` of `minimize` and `explore`: the scenario they find.
    static let scenarioOutput = output(
        writing: "the scenario", "write the minimal scenario here (default: standard output)")

    /// `--output FILE`, writing `what` (the export, the scenario).
    static func output(writing what: String, _ help: String) -> Option<String> {
        .outputFile("--output", help, what: what)
    }
}

extension Option where Value == String {
    /// A file the command writes (`--html FILE`), checked before the command runs, as
    /// `OutputFile.check` checks it; `what` names the file in the error line.
    static func outputFile(_ name: String, _ help: String, what: String) -> Option {
        var option = Option(name, "FILE", help) { path, name throws(UsageError) in
            try OutputFile.check(path, what: what, option: name)
            return path
        }
        option.checkedUpFront = true
        return option
    }
}

extension Option where Value == Date {
    /// A time (`--since TIME`) as `TimeBound` reads it, a bound on the `side` it is: "--since takes
    /// an ISO 8601 time (2026-11-30, 2026-11-30T05:30:00Z), 'today' or 'recent', not 'soon'".
    static func time(_ name: String, _ help: String, as side: TimeBound.Side) -> Option {
        Option(name, "TIME", help) { text, name throws(UsageError) in
            guard let date = TimeBound.parse(text, as: side, now: Date()) else {
                throw UsageError(
                    message:
                        "\(name) takes an ISO 8601 time (2026-11-30, 2026-11-30T05:30:00Z), 'today' or 'recent', not '\(text)'"
                )
            }
            return date
        }
    }
}
