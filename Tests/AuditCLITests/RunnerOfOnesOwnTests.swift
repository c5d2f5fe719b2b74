import AuditCore
import AuditExamples
import Foundation
import SharedTestSupport
import Synchronization
import Testing

@testable import AuditCLI

extension AuditCommandLine {
    /// `auditctl` as `Sources/auditctl/main.swift` builds it (`auditctlInProcessIsTheBinary` holds
    /// the two together): the examples registered, the demo added.
    static let auditctl = AuditCommandLine(registry: .examples, catalog: .builtIn)
        .adding(
            .demo(
                "the checkout example", scenario: { try Examples.checkout() }, delegate: "checkout.v1",
                candidate: "checkout.v2"))

    /// A runner of one's own, `my-tool`, whose registry holds one made-up delegate and nothing of
    /// the examples.
    static func madeUp(delegate: String = "form.alpha") -> AuditCommandLine {
        var registry = DelegateRegistry()
        registry.register(delegate, summary: "a form of one's own") { FormDelegate() }
        return AuditCommandLine(registry: registry, catalog: .builtIn, environment: [:], programName: "my-tool")
    }

    /// Runs one command line in this process: its exit status and what it wrote to each stream.
    func capture(_ arguments: [String]) -> Run {
        let written = Mutex<(out: String, error: String)>(("", ""))
        let output = Output(
            out: { text in written.withLock { $0.out += text } },
            error: { text in written.withLock { $0.error += text } })
        let status = run(arguments, output: output)
        return written.withLock { Run(status: status, stdout: $0.out, stderr: $0.error) }
    }
}

/// A delegate of one's own that answers nothing: help needs only its name.
private final class FormDelegate: SegmentedControlDelegate {}

/// A runner of one's own shows only what it registers and adds: its own delegates in every help
/// example, no command it did not add, and the examples' names nowhere.
@Suite("A runner of one's own")
struct RunnerOfOnesOwnTests {
    static let runner = AuditCommandLine.madeUp()

    /// The tool's help and every command's, in this runner's names.
    static var everyHelp: [Run] {
        [runner.capture(["--help"])] + runner.commands.map { runner.capture([$0.name, "--help"]) }
    }

    @Test func itsHelpNamesItsOwnDelegatesAndNeverTheExamples() {
        for help in Self.everyHelp {
            #expect(help.status == 0 && help.stderr == "", "\(help)")
            #expect(help.stdout.hasPrefix("usage: my-tool "), "\(help)")
            for foreign in ["checkout", "demo", "auditctl "] {
                #expect(!help.stdout.contains(foreign), "\(foreign) in \(help)")
            }
        }
        for command in ["record", "replay", "minimize", "explore"] {
            let help = Self.runner.capture([command, "--help"])
            #expect(help.stdout.contains("\n  my-tool \(command) ") && help.stdout.contains(" form.alpha"), "\(help)")
        }
        let explore = Self.runner.capture(["explore", "--help"]).stdout
        #expect(explore.contains(" --delegate form.alpha --candidate form.alpha "), "\(explore)")
    }

    @Test func theDemoIsAnUnknownCommand() {
        for arguments in [["demo"], ["demo", "--help"]] {
            let run = Self.runner.capture(arguments)
            #expect(run.status == 2 && run.stdout == "", "\(run)")
            expectEqual(run.stderr, "my-tool: error: unknown command 'demo'; run 'my-tool --help' for the list\n")
        }
        // `help demo` knows no such command either: it lists the runner's commands.
        expectEqual(Self.runner.capture(["help", "demo"]).stdout, Self.runner.capture(["--help"]).stdout)
    }

    /// A usage mistake points at the command's help under the runner's name.
    @Test func aUsageMistakePointsAtTheRunnersOwnHelp() {
        let run = Self.runner.capture(["search", "--mistakes"])
        expectEqual(
            run.stderr,
            "my-tool: error: option '--mistakes' needs a value (--mistakes yes|no); see 'my-tool search --help'\n")
    }

    @Test func aNameAShellWouldSplitIsQuotedInTheExamples() {
        let help = AuditCommandLine.madeUp(delegate: "our form").capture(["minimize", "--help"])
        #expect(help.stdout.contains("\n  my-tool minimize --session 1 --delegate 'our form'\n"), "\(help)")
    }

    /// A runner adds the demo for a scenario of its own: listed after the built-in commands, in
    /// its names.
    @Test func anAddedDemoIsListedAndRunsInTheRunnersNames() throws {
        let scenario = try Examples.checkout()
        let runner = AuditCommandLine.madeUp().adding(
            .demo("our form", scenario: { scenario }, delegate: "form.alpha", candidate: "form.alpha"))
        let usage = runner.capture(["--help"]).stdout
        let listed = usage.split(separator: "\n", omittingEmptySubsequences: false).drop { $0 != "commands:" }
            .dropFirst().prefix { !$0.isEmpty }
        expectEqual(listed.map { $0.split(separator: " ")[0] }, runner.commands.map { Substring($0.name) })
        expectEqual(
            listed.last?.hasSuffix("  record our form with form.alpha, replay it against form.alpha, show the report"),
            true, "\(usage)")
        let help = runner.capture(["demo", "--help"])
        #expect(help.stdout.hasPrefix("usage: my-tool demo [OPTIONS]\n"), "\(help)")
    }

    /// What the types cannot hold is checked at the first call: every call fails with one line
    /// that names the fix, even `--help`.
    @Test(arguments: [
        (
            AuditCommandLine.madeUp().adding(
                .demo("x", scenario: { try Examples.checkout() }, delegate: "checkout.v1", candidate: "form.alpha")),
            "the added command 'demo' runs an unknown delegate 'checkout.v1' (registered: form.alpha); "
                + "register it before adding the command"
        ),
        (
            AuditCommandLine.madeUp()
                .adding(
                    .demo("x", scenario: { try Examples.checkout() }, delegate: "form.alpha", candidate: "form.alpha")
                )
                .adding(
                    .demo("y", scenario: { try Examples.checkout() }, delegate: "form.alpha", candidate: "form.alpha")),
            "the command 'demo' is added but my-tool has one of that name; add it once, under a name of its own"
        ),
    ])
    func aMisdeclaredCommandFailsEveryCall(runner: AuditCommandLine, message: String) {
        for arguments in [["--help"], ["sessions"], ["demo"]] {
            let run = runner.capture(arguments)
            #expect(run.status == 2 && run.stdout == "", "\(run)")
            expectEqual(run.stderr, "my-tool: error: \(message)\n", "\(run)")
        }
    }

    /// The runner the tests build in process is the one the `auditctl` binary runs.
    @Test func auditctlInProcessIsTheBinary() throws {
        let sandbox = try Sandbox()
        for arguments in [["--help"], ["demo", "--help"], ["explore", "--help"]] {
            let binary = try sandbox.run(arguments)
            expectEqual(binary.status, 0, "\(binary)")
            expectEqual(AuditCommandLine.auditctl.capture(arguments).stdout, binary.stdout, "\(arguments)")
        }
    }
}
