import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// What one run of the built `auditctl` printed and returned.
struct Run: Sendable, CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String

    var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)---" }
}

/// Why a run could not happen, or did not end normally.
struct SandboxError: Error, CustomStringConvertible {
    let description: String
}

/// A fresh temporary directory that is the working directory of one test's `auditctl` runs.
///
/// Runs the executable that SwiftPM built next to the test bundle, so the end-to-end tests check
/// what a user sees: the arguments the real binary accepts, its exit status, and what it writes
/// to each stream. The directory and everything in it is removed when the sandbox is released.
final class Sandbox {
    /// The package root, found from this file's path (`Tests/AuditCLITests/Sandbox.swift`).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built `auditctl`, in the directory that holds the test bundle: on Linux the bundle is
    /// the test executable itself (`.build/debug/NAME.xctest`), on macOS a directory
    /// (`.build/debug/NAME.xctest/Contents/MacOS/NAME`). `swift test` builds the executable too.
    static let binary = executable(named: "auditctl")

    /// An executable product SwiftPM built next to the test bundle.
    static func executable(named name: String) -> Result<URL, SandboxError> {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var bundle = executable
        while bundle.pathExtension != "xctest", bundle.pathComponents.count > 1 {
            bundle = bundle.deletingLastPathComponent()
        }
        let directory = (bundle.pathExtension == "xctest" ? bundle : executable).deletingLastPathComponent()
        let candidate = directory.appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isExecutableFile(atPath: candidate.path)
        else {
            return .failure(
                SandboxError(
                    description: "the \(name) executable is not built next to the tests (no \(candidate.path)); "
                        + "run `swift build` first"))
        }
        return .success(candidate)
    }

    let base: URL
    /// The working directory of every run.
    let directory: URL
    private var runs = 0

    init() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("auditctl-e2e-\(UUID().uuidString)")
        directory = base.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: base)
    }

    /// Runs `auditctl arguments` in `directory`, with `AUDITCTL_DB` unset unless `environment` sets it.
    ///
    /// A run killed by a signal (a crash) is returned with status 128 + the signal, as a shell shows it.
    func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(60),
        program: String = "auditctl", wrapper: [String] = []
    ) throws -> Run {
        try finish(
            try launch(arguments, environment: environment, program: program, wrapper: wrapper), timeout: timeout)
    }

    /// Starts every command line at once, with `environment` added to each, and waits for all of them.
    func runConcurrently(
        _ commandLines: [[String]], environment: [String: String] = [:], timeout: Duration = .seconds(60)
    ) throws -> [Run] {
        let launched = try commandLines.map { try launch($0, environment: environment) }
        return try launched.map { try finish($0, timeout: timeout) }
    }

    struct Launched {
        let process: Process
        let arguments: [String]
        let out: (handle: FileHandle, url: URL)
        let err: (handle: FileHandle, url: URL)
        /// Becomes readable when the process has ended: its termination handler writes a byte.
        let exited: Pipe
    }

    /// Starts `program` (through `wrapper`, a command that runs the rest of its arguments, when given).
    func launch(
        _ arguments: [String], environment: [String: String], program: String = "auditctl", wrapper: [String] = []
    ) throws -> Launched {
        let binary = try (program == "auditctl" ? Self.binary : Self.executable(named: program)).get()
        runs += 1
        let outURL = base.appendingPathComponent("stdout-\(runs)")
        let errURL = base.appendingPathComponent("stderr-\(runs)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)

        let process = Process()
        if let tool = wrapper.first {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = wrapper.dropFirst() + [binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory
        var variables = ProcessInfo.processInfo.environment
        variables["AUDITCTL_DB"] = nil
        variables.merge(environment) { $1 }
        process.environment = variables
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        let exited = Pipe()
        let signal = exited.fileHandleForWriting
        process.terminationHandler = { _ in try? signal.write(contentsOf: [1]) }
        try process.run()
        return Launched(
            process: process, arguments: arguments, out: (out, outURL), err: (err, errURL), exited: exited)
    }

    /// Waits for the process to end, woken by its end. `timeout` only keeps a test from hanging on
    /// a process that never ends: past it, the process is stopped and the test fails.
    func finish(_ launched: Launched, timeout: Duration) throws -> Run {
        let process = launched.process
        var exit = [pollfd(fd: launched.exited.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)]
        var ready: Int32
        repeat {
            ready = poll(&exit, 1, Int32(timeout.components.seconds * 1_000))
        } while ready < 0 && errno == EINTR
        if ready == 0 {
            process.terminate()
            process.waitUntilExit()
            throw SandboxError(
                description: "auditctl \(launched.arguments) ran longer than \(timeout) and was stopped")
        }
        process.waitUntilExit()
        try launched.out.handle.close()
        try launched.err.handle.close()
        return Run(
            status: process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: launched.out.url), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: launched.err.url), as: UTF8.self))
    }

    /// The absolute path of `name` inside the working directory.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }

    func write(_ name: String, bytes: [UInt8]) throws {
        try Data(bytes).write(to: directory.appendingPathComponent(name))
    }

    /// Copies the two-segmented-control checkout (`Tests/Fixtures/segments-checkout.json`, the
    /// first shipped example, kept small so counts in these tests stay readable) into the working
    /// directory.
    @discardableResult
    func copyExample(as name: String = "checkout.json") throws -> String {
        let source = Self.packageRoot.appendingPathComponent("Tests/Fixtures/segments-checkout.json")
        try FileManager.default.copyItem(at: source, to: directory.appendingPathComponent(name))
        return name
    }

    /// The file's bytes, or nil when it does not exist.
    func bytes(_ name: String) -> Data? {
        FileManager.default.contents(atPath: path(name))
    }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    /// The names in the working directory.
    func listing() throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
    }

    /// Records the shipped example into `database` (with `delegate`, else the scenario's own) and
    /// returns the new session id.
    @discardableResult
    func recordExample(database: String = "audit.sqlite", delegate: String? = nil) throws -> Int {
        if !exists("checkout.json") { try copyExample() }
        let run = try run(
            ["record", "--scenario", "checkout.json", "--db", database] + (delegate.map { ["--delegate", $0] } ?? []))
        guard run.status == 0, let id = Int(run.stdout.trimmingCharacters(in: .newlines)) else {
            throw SandboxError(description: "recording the example failed\n\(run)")
        }
        return id
    }

    /// Runs `sqlite3` (the system's command-line shell) on a database in the working directory.
    func sqlite3(_ database: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path(database), sql]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SandboxError(description: "sqlite3 \(database) '\(sql)' failed with \(process.terminationStatus)")
        }
    }
}

// MARK: Expectations shared by the end-to-end suites

/// A failed run: exit status 2, nothing on stdout, and exactly the line
/// `auditctl: error: MESSAGE` on stderr (so no usage text and no stack trace).
func expectError(_ run: Run, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
    expectEqual(run.status, 2, "\(run)", sourceLocation: sourceLocation)
    expectEqual(run.stdout, "", sourceLocation: sourceLocation)
    expectEqual(run.stderr, "auditctl: error: \(message)\n", sourceLocation: sourceLocation)
}

/// A failed run whose one stderr line starts `auditctl: error: PREFIX`.
func expectError(_ run: Run, startingWith prefix: String, sourceLocation: SourceLocation = #_sourceLocation) {
    expectEqual(run.status, 2, "\(run)", sourceLocation: sourceLocation)
    expectEqual(run.stdout, "", sourceLocation: sourceLocation)
    #expect(run.stderr.hasPrefix("auditctl: error: \(prefix)"), "\(run)", sourceLocation: sourceLocation)
    #expect(run.stderr.hasSuffix("\n"), sourceLocation: sourceLocation)
    expectEqual(run.stderr.filter { $0 == "\n" }.count, 1, "\(run)", sourceLocation: sourceLocation)
}

/// Decodes a command's JSON output.
func decodeJSON(_ text: String) throws -> AuditValue {
    try AuditValue(json: text)
}

/// The records of a command's CSV output (see `readCSV`); text that is not CSV fails the test.
func parseCSV(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [[String]] {
    do {
        return try readCSV(text)
    } catch {
        Issue.record(error, "not CSV: \(text.prefix(200).debugDescription)", sourceLocation: sourceLocation)
        return []
    }
}
