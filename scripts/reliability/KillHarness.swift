import CSQLite
import Foundation
import Synchronization

/// The kill harness: records a long checkout-like scenario in a child process, kills the child
/// with SIGKILL at random moments, and checks after each kill what the database holds.
///
/// Built by `scripts/kill-harness.sh` from AuditCore's sources (one module, so it may use internal
/// API). The child records exactly as `auditctl record` does — the same parser, dry run, recorder
/// and store — and writes a progress line after each step (`step K T`, T on the monotonic clock
/// the parent shares). A reference run that is not killed gives, for each step, the last `seq` it
/// produces (every generated step is one top-level input). After each kill:
///
/// - `PRAGMA integrity_check` is `ok`;
/// - the session reads as interrupted, and the next open for writing stores it;
/// - its `seq` runs 1…M with no hole, and those M events are exactly the reference's first M;
/// - lost = events of the steps completed before the kill that are not stored, and how long before
///   the kill the oldest of them was queued; with `--enforce-window`, every step completed longer
///   ago than the durability window (`--window-ms`) must be stored.
@main
struct KillHarness {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            if arguments.first == "child" {
                try Child.run(Array(arguments.dropFirst()))
                exit(0)
            }
            exit(try Harness(options: Options(arguments)).run() ? 0 : 1)
        } catch {
            FileHandle.standardError.write(Data("kill-harness: error: \(error)\n".utf8))
            exit(2)
        }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

struct Options {
    var kills = 20
    var steps = 50_000
    var seed: UInt64 = 1
    /// The durability window checked: the flush interval (50 ms) plus an allowance for one batch's write.
    var windowMilliseconds = 250
    /// Fail when a kill loses an event older than the window (timing depends on the machine, so by
    /// default the window is measured and reported only).
    var enforceWindow = false
    var directory: String?

    init(_ arguments: [String]) throws {
        var index = 0
        func value() throws -> String {
            index += 1
            guard index < arguments.count else { throw HarnessError("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--kills": kills = Int(try value()) ?? 0
            case "--steps": steps = Int(try value()) ?? 0
            case "--seed": seed = UInt64(try value()) ?? 1
            case "--window-ms": windowMilliseconds = Int(try value()) ?? 0
            case "--enforce-window": enforceWindow = true
            case "--dir": directory = try value()
            case let other: throw HarnessError("unknown option \(other)")
            }
            index += 1
        }
        guard kills > 0, (100...Scenario.maximumSteps).contains(steps), windowMilliseconds > 0 else {
            throw HarnessError("--kills must be positive, --steps within 100...\(Scenario.maximumSteps)")
        }
    }
}

// MARK: The child

/// Records the scenario into the database as `auditctl record` does, reporting progress on stdout.
enum Child {
    static func run(_ arguments: [String]) throws {
        guard arguments.count == 2 else { throw HarnessError("usage: kill-harness child SCENARIO DATABASE") }
        let scenario = try Scenario(contentsOf: arguments[0], catalog: .builtIn)
        let entry = try DelegateRegistry.examples.entry(named: "checkout.v1")
        let rehearsal = entry.make()
        try withExtendedLifetime(rehearsal) { () throws(ScenarioError) in
            _ = try ScenarioRunner.run(scenario, delegate: rehearsal)
        }
        let recorder = try Recorder(
            databasePath: arguments[1],
            session: NewSession(
                name: "kill-harness", scenario: scenario.name, source: scenario.source, delegate: "checkout.v1"),
            catalog: .builtIn
        )
        let delegate = entry.make()
        let root = scenario.root.build()
        ScenarioRunner.adopt(delegate, in: root, catalog: .builtIn)
        try recorder.attach(to: root)
        report("recording", 0)
        for (index, step) in scenario.steps.enumerated() {
            step.perform(on: try step.target(in: root, at: "steps[\(index)]"))
            report("step", index + 1)
        }
        let summary = recorder.finish()
        report("finished", summary.events)
        withExtendedLifetime(delegate) {}
    }

    /// One line on stdout, written at once (a pipe keeps it when the process is killed).
    static func report(_ what: String, _ value: Int) {
        let line = "\(what) \(value) \(monotonicNanoseconds())\n"
        _ = line.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
    }
}

// MARK: The scenario

/// A checkout-like scenario: two segmented controls, an items table, a coupon and a note with
/// character limits, a terms scroll view; `count` seeded steps, each one top-level input that is
/// valid whatever the delegate answers (drags come as begin, move, end).
func checkoutScenario(steps count: Int, seed: UInt64) -> String {
    var random = SplitMix(seed: seed)
    var steps: [String] = []
    func add(_ text: String) { steps.append(text) }
    while steps.count < count {
        switch random.next(below: 10) {
        case 0, 1, 2:
            let widget = random.next(below: 2) == 0 ? "shipping" : "payment"
            add(#"{"action":"tapSegment","widget":"checkout/\#(widget)","segment":\#(random.next(below: 3))}"#)
        case 3:
            let widget = random.next(below: 2) == 0 ? "shipping" : "payment"
            add(
                #"{"action":"selectSegment","widget":"checkout/\#(widget)","segment":\#(random.next(below: 3)),"#
                    + #""notify":\#(random.next(below: 2) == 0)}"#)
        case 4, 5:
            let (section, row) = random.next(below: 4) == 3 ? (1, 0) : (0, random.next(below: 3))
            add(#"{"action":"tapRow","widget":"checkout/items","indexPath":{"section":\#(section),"row":\#(row)}}"#)
        case 6, 7:
            let widget = random.next(below: 2) == 0 ? "coupon" : "note"
            let letters = Array("ABCDEFGHXYZ0123456789abcxyz ")
            let text = String((0...random.next(below: 3)).map { _ in letters[random.next(below: letters.count)] })
            switch random.next(below: 4) {
            case 0: add(#"{"action":"beginEditing","widget":"checkout/\#(widget)"}"#)
            case 1: add(#"{"action":"endEditing","widget":"checkout/\#(widget)"}"#)
            case 2: add(#"{"action":"selectText","widget":"checkout/\#(widget)","range":{"location":0,"length":0}}"#)
            default: add(#"{"action":"typeText","widget":"checkout/\#(widget)","text":"\#(text)"}"#)
            }
        case 8:
            add(#"{"action":"beginDrag","widget":"checkout/terms"}"#)
            add(
                #"{"action":"drag","widget":"checkout/terms","translation":{"x":0,"y":\#(random.next(below: 200) - 100)}}"#
            )
            add(
                #"{"action":"endDrag","widget":"checkout/terms","velocity":{"x":0,"y":\#(Double(random.next(below: 11) - 5) / 10)}}"#
            )
        default:
            add(#"{"action":"tapStatusBar","widget":"checkout/terms"}"#)
        }
    }
    steps.removeLast(steps.count - count)
    // A drag cut in two by the count is closed.
    if steps.last?.contains(#""action":"beginDrag""#) == true { steps[steps.count - 1] = steps[0] }
    if steps.last?.contains(#""action":"drag""#) == true {
        steps[steps.count - 1] = #"{"action":"endDrag","widget":"checkout/terms","velocity":{"x":0,"y":0}}"#
    }
    return #"{"format":1,"name":"checkout-long","delegate":"checkout.v1","root":{"kind":"View","id":"checkout","#
        + #""frame":[0,0,390,844],"children":["#
        + #"{"kind":"SegmentedControl","id":"shipping","frame":[16,100,358,32],"segments":["Standard","Express","Pickup"],"selected":0},"#
        + #"{"kind":"SegmentedControl","id":"payment","frame":[16,150,358,32],"segments":["Card","PayPal","Invoice"],"selected":0},"#
        + #"{"kind":"TableView","id":"items","frame":[0,200,390,220],"rows":[3,1],"scrollsToTop":false},"#
        + #"{"kind":"NoteTextView","id":"coupon","frame":[16,440,358,40],"characterLimit":12},"#
        + #"{"kind":"NoteTextView","id":"note","frame":[16,490,358,80],"characterLimit":20},"#
        + #"{"kind":"ScrollView","id":"terms","frame":[16,580,358,120],"contentSize":[358,600]}]},"#
        + #""steps":["# + steps.joined(separator: ",") + "]}"
}

/// SplitMix64, so a seed gives the same scenario and kill moments every time.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func fraction() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

// MARK: The parent

/// A child run: its progress lines as they arrived, and how it ended.
final class ChildRun: Sendable {
    struct Line: Sendable {
        let kind: String
        let value: Int
        let time: Int64
    }

    let pid: pid_t
    private let lines = Mutex<[Line]>([])
    private let done = DispatchSemaphore(value: 0)

    /// Starts `executable child SCENARIO DATABASE` with its stdout on a pipe read by a thread.
    init(executable: String, scenario: String, database: String) throws {
        var pipe: [Int32] = [0, 0]
        guard Foundation.pipe(&pipe) == 0 else { throw HarnessError("pipe failed") }
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        let argv: [UnsafeMutablePointer<CChar>?] =
            [executable, "child", scenario, database].map { (argument: String) in strdup(argument) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(pipe[1])
        guard code == 0 else { throw HarnessError("cannot start the child: \(String(cString: strerror(code)))") }
        self.pid = pid
        let reader = pipe[0]
        Thread.detachNewThread { [self] in
            let handle = FileHandle(fileDescriptor: reader, closeOnDealloc: true)
            var pending = Data()
            while case let chunk = handle.availableData, !chunk.isEmpty {
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let fields = String(decoding: pending[..<newline], as: UTF8.self).split(separator: " ")
                    pending.removeSubrange(...newline)
                    if fields.count == 3, let value = Int(fields[1]), let time = Int64(fields[2]) {
                        self.lines.withLock { $0.append(Line(kind: String(fields[0]), value: value, time: time)) }
                    }
                }
            }
            self.done.signal()
        }
    }

    var progress: [Line] { lines.withLock { $0 } }

    /// Waits for the child to end; returns its exit status, or 128 + the signal that ended it.
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        done.wait()
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Waits until a progress line of `kind` has arrived, or the child's output ended.
    func waitFor(_ kind: String) -> Line? {
        while true {
            if let line = lines.withLock({ $0.first { $0.kind == kind } }) { return line }
            if done.wait(timeout: .now() + .milliseconds(1)) == .success {
                done.signal()
                return lines.withLock { $0.first { $0.kind == kind } }
            }
        }
    }
}

/// What is compared between a killed session and the reference: everything but times.
struct EventIdentity: Equatable {
    let event: TimelineEvent
    static func == (a: Self, b: Self) -> Bool {
        (a.event.seq, a.event.kind, a.event.widget, a.event.widgetKind, a.event.protocolName, a.event.callback)
            == (b.event.seq, b.event.kind, b.event.widget, b.event.widgetKind, b.event.protocolName, b.event.callback)
            && (a.event.arguments, a.event.result, a.event.vetoed, a.event.implemented, a.event.parentSeq)
                == (b.event.arguments, b.event.result, b.event.vetoed, b.event.implemented, b.event.parentSeq)
    }
}

struct Harness {
    let options: Options

    func run() throws -> Bool {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        let directory =
            options.directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("kill-harness-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { if options.directory == nil { try? FileManager.default.removeItem(atPath: directory) } }
        let scenario = directory + "/checkout-long.json"
        try Data(checkoutScenario(steps: options.steps, seed: options.seed).utf8).write(
            to: URL(fileURLWithPath: scenario))

        // The reference: not killed.
        let referenceDatabase = directory + "/reference.sqlite"
        let reference = try ChildRun(executable: executable, scenario: scenario, database: referenceDatabase)
        let status = reference.wait()
        guard status == 0, let started = reference.progress.first(where: { $0.kind == "recording" }),
            let finished = reference.progress.first(where: { $0.kind == "finished" })
        else { throw HarnessError("the reference run failed (status \(status))") }
        let expected = try AuditStore(path: referenceDatabase, access: .read).timeline(of: 1)
        let inputs = expected.filter { $0.kind == .input && $0.parentSeq == nil }
        guard inputs.count == options.steps, expected.count == finished.value else {
            throw HarnessError("the reference recorded \(inputs.count) top-level inputs for \(options.steps) steps")
        }
        // stepEnd[k]: the last seq of step k (1-based); stepEnd[0] = 0.
        let stepEnd = [Int64(0)] + inputs.dropFirst().map { $0.seq - 1 } + [Int64(expected.count)]
        let recordingTime = finished.time - started.time
        print(
            "reference: \(options.steps) steps, \(expected.count) events, recorded in "
                + String(format: "%.2f s", Double(recordingTime) / 1e9) + " (seed \(options.seed))")

        let database = directory + "/audit.sqlite"
        let window = Int64(options.windowMilliseconds) * 1_000_000
        var random = SplitMix(seed: options.seed &+ 7)
        var survived = 0
        var windowHeld = 0
        var mostLost = 0
        var oldestLost: Int64 = 0
        var session: Int64 = 0
        var finishedEarly = 0
        for kill in 1...options.kills {
            session += 1
            var attempt = 0
            var outcome: (run: ChildRun, killedAt: Int64)?
            while outcome == nil {
                attempt += 1
                let child = try ChildRun(executable: executable, scenario: scenario, database: database)
                guard let recording = child.waitFor("recording") else {
                    throw HarnessError("the child ended before recording (status \(child.wait()))")
                }
                // A child faster than the reference may finish first: then it is drawn again, nearer
                // the start each time, so the harness cannot fail on timing.
                let scale = attempt < 8 ? 1 / Double(1 << (attempt - 1)) : 0
                let moment = recording.time + Int64(random.fraction() * scale * Double(recordingTime))
                while monotonicNanoseconds() < moment, child.progress.last?.kind != "finished" {
                    usleep(200)
                }
                let killedAt = monotonicNanoseconds()
                Foundation.kill(child.pid, SIGKILL)
                let status = child.wait()
                if status == 128 + SIGKILL {
                    outcome = (child, killedAt)
                } else if status == 0 && attempt < 8 {
                    finishedEarly += 1  // the child won the race; its session is complete: draw again
                    session += 1
                } else {
                    throw HarnessError("the child ended with status \(status)")
                }
            }
            let (child, killedAt) = outcome!
            let check = try checkKill(
                database: database, session: session, expected: expected, stepEnd: stepEnd,
                progress: child.progress.filter { $0.kind == "step" }, killedAt: killedAt, window: window)
            if check.survived { survived += 1 }
            if check.windowHeld { windowHeld += 1 }
            mostLost = max(mostLost, check.lost)
            oldestLost = max(oldestLost, check.oldestLostAge)
            print(String(format: "kill %2d/%d: ", kill, options.kills) + check.line)
        }
        if finishedEarly > 0 { print("(\(finishedEarly) runs finished before their kill and were drawn again)") }
        print("kills survived: \(survived)/\(options.kills)")
        print(
            "most events lost in one kill: \(mostLost)"
                + (mostLost > 0
                    ? String(
                        format: "; the oldest lost event was queued %.1f ms before its kill", Double(oldestLost) / 1e6)
                    : "")
                + "; durability window held (nothing older than \(options.windowMilliseconds) ms lost, or no more than "
                + "\(2 * Recorder.Options().capacity) events: queue plus batch being written) in \(windowHeld)/\(options.kills) kills"
                + (options.enforceWindow ? "" : " (reported, not enforced: see --enforce-window)"))
        return survived == options.kills && (!options.enforceWindow || windowHeld == options.kills)
    }

    struct KillCheck {
        var survived: Bool
        var windowHeld: Bool
        var lost: Int
        var oldestLostAge: Int64
        var line: String
    }

    func checkKill(
        database: String, session: Int64, expected: [TimelineEvent], stepEnd: [Int64], progress: [ChildRun.Line],
        killedAt: Int64, window: Int64
    ) throws -> KillCheck {
        var problems: [String] = []
        let integrity = try Connection(path: database, mode: .readWrite(create: false)).scalarText(
            "PRAGMA integrity_check")
        if integrity != "ok" { problems.append("integrity_check: \(integrity ?? "nil")") }
        let stored = "SELECT status FROM sessions WHERE id = \(session)"
        let raw = try Connection(path: database, mode: .readOnly).scalarText(stored)
        // A kill that lands after the session was closed (while the process exits) finds it complete.
        let completed = raw == "complete"
        if raw != "recording" && !completed { problems.append("stored status \(raw ?? "none")") }
        let store = try AuditStore(path: database, access: .read)
        if try store.session(session).status != (completed ? .complete : .interrupted) {
            problems.append("does not read as interrupted")
        }
        let events = try store.timeline(of: session)
        let count = Int64(events.count)
        if events.map(\.seq) != Array(stride(from: 1, through: count, by: 1)) { problems.append("holes in seq") }
        if events.map(EventIdentity.init) != expected.prefix(events.count).map(EventIdentity.init) {
            problems.append("the stored events differ from the reference's")
        }
        if completed && events.count != expected.count { problems.append("complete, yet events are missing") }
        _ = try AuditStore(path: database, access: .write)
        let marked = try Connection(path: database, mode: .readOnly).scalarText(stored)
        if marked != (completed ? "complete" : "interrupted") {
            problems.append("the next open for writing left it \(marked ?? "none")")
        }

        // Loss, against the steps the child had completed before the kill.
        let stepsDone = progress.last { $0.time < killedAt }?.value ?? 0
        let produced = stepEnd[stepsDone]
        let lost = Int(max(0, produced - count))
        let inProgress = stepsDone < stepEnd.count - 1 ? stepEnd[stepsDone + 1] : produced
        let old = progress.last { $0.time < killedAt - window }?.value ?? 0
        // Under overload the window is a count: the queue's capacity plus the batch being written,
        // which is whatever the queue held when the writer took it.
        let windowHeld = stepEnd[old] <= count || lost <= 2 * Recorder.Options().capacity
        var age: Int64 = 0
        if lost > 0, let step = stepEnd.firstIndex(where: { $0 >= count + 1 }),
            let line = progress.first(where: { $0.value == step })
        {
            age = killedAt - line.time
        }
        var line =
            "\(events.count) events stored, \(lost) lost (≤ \(max(0, inProgress - count)) with the step in progress)"
        if lost > 0 { line += String(format: ", the oldest completed %.1f ms before the kill", Double(age) / 1e6) }
        if problems.isEmpty {
            line +=
                completed
                ? "; the recording had completed: integrity ok, every event there"
                : "; integrity ok, seq contiguous, matches the reference, marked interrupted"
        }
        if !windowHeld {
            line += "; lost events older than \(options.windowMilliseconds) ms and more than twice the queue's capacity"
        }
        if !problems.isEmpty { line += "; FAILED: " + problems.joined(separator: "; ") }
        return KillCheck(survived: problems.isEmpty, windowHeld: windowHeld, lost: lost, oldestLostAge: age, line: line)
    }
}
