import AuditCore
import Foundation
import SharedTestSupport
import Testing

extension HostileInputTests {
    // MARK: permissions

    /// Runs a command as the unprivileged user `nobody` (65534): through `setpriv` when the tests run
    /// as root, which no file permission stops; directly otherwise. Nil when neither is possible.
    static let unprivileged: [String]? = {
        if getuid() != 0 { return [] }
        let setpriv = "/usr/bin/setpriv"
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { return nil }
        // Under `swift test --enable-code-coverage` the binary writes a profile where the tests'
        // user can write and `nobody` cannot, and says so on stderr: it writes to /tmp instead
        // (those runs are left out of the coverage figure).
        return [
            "/usr/bin/env", "LLVM_PROFILE_FILE=/tmp/auditctl-unprivileged-%p.profraw", setpriv, "--reuid=65534",
            "--regid=65534", "--clear-groups",
        ]
    }()

    /// Lets the unprivileged user reach the sandbox's working directory (and write in it when asked).
    static func openUp(_ sandbox: Sandbox, writable: Bool) {
        chmod(sandbox.base.path, 0o755)
        chmod(sandbox.directory.path, writable ? 0o777 : 0o755)
    }

    @Test(
        "a database without permission is refused by every command in one line",
        .enabled(if: unprivileged != nil, "runs as root without setpriv: permissions cannot be tested"))
    func noPermission() throws {
        let sandbox = try Sandbox()
        try sandbox.copyRecordedExample()
        Self.openUp(sandbox, writable: true)
        chmod(sandbox.path("checkout.json"), 0o644)
        // The database is owner-only, as auditctl makes it.
        let before = try #require(sandbox.bytes("audit.sqlite"))
        for command in Self.everyCommand {
            expectError(
                try sandbox.run(command, wrapper: Self.unprivileged ?? []),
                "cannot open audit.sqlite: permission denied")
        }
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        try expectEqual(sandbox.listing(), ["audit.sqlite", "checkout.json"])
    }

    @Test(
        "a database that is read-only to the user can be read, not recorded into",
        .enabled(if: unprivileged != nil, "runs as root without setpriv: permissions cannot be tested"))
    func readOnlyPermission() throws {
        let sandbox = try Sandbox()
        try sandbox.copyRecordedExample()
        Self.openUp(sandbox, writable: true)
        chmod(sandbox.path("audit.sqlite"), 0o644)
        chmod(sandbox.path("checkout.json"), 0o644)
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let wrapper = Self.unprivileged ?? []
        for command in [["sessions"], ["show", "--session", "1"], ["query", "select count(*) from events"]] {
            let run = try sandbox.run(command, wrapper: wrapper)
            #expect(run.status == 0 && run.stderr == "", "\(run)")
        }
        for command in [Self.everyCommand[0], Self.everyCommand[5]] {
            expectError(
                try sandbox.run(command, wrapper: wrapper),
                "cannot open audit.sqlite: permission denied (it is read-only to you)")
        }
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    @Test(
        "a database in a directory the user cannot write is read as on read-only media, and not written",
        .enabled(if: unprivileged != nil, "runs as root without setpriv: permissions cannot be tested"))
    func unwritableDirectory() throws {
        let sandbox = try Sandbox()
        try sandbox.copyRecordedExample()
        let reading = Self.everyCommand.filter { $0[0] != "record" && $0[0] != "replay" }
        let expected = try reading.map { try sandbox.run($0) }
        Self.openUp(sandbox, writable: false)
        chmod(sandbox.path("audit.sqlite"), 0o666)
        chmod(sandbox.path("checkout.json"), 0o644)
        let before = try #require(sandbox.bytes("audit.sqlite"))
        // An archive on read-only media: SQLite cannot make the -shm, so it is read as unchanging.
        for (command, expected) in zip(reading, expected) {
            let run = try sandbox.run(command, wrapper: Self.unprivileged ?? [])
            #expect(run.status == expected.status && run.stdout == expected.stdout && run.stderr == "", "\(run)")
        }
        for command in Self.everyCommand where !reading.contains(command) {
            expectError(
                try sandbox.run(command, wrapper: Self.unprivileged ?? []),
                "cannot open audit.sqlite: its directory is not writable, and SQLite must create audit.sqlite-shm "
                    + "beside it")
        }
        expectError(
            try sandbox.run(
                ["record", "--scenario", "checkout.json", "--db", "new.sqlite"], wrapper: Self.unprivileged ?? []),
            "cannot open new.sqlite: permission denied")
        expectEqual(sandbox.bytes("audit.sqlite"), before)
        try expectEqual(sandbox.listing(), ["audit.sqlite", "checkout.json"])
        // Changes in a -wal only a -shm can index cannot be read there: refused, not ignored.
        Self.openUp(sandbox, writable: true)
        try sandbox.write("audit.sqlite-wal", bytes: Self.noise(4_096))
        Self.openUp(sandbox, writable: false)
        for command in reading {
            expectError(
                try sandbox.run(command, wrapper: Self.unprivileged ?? []),
                "cannot open audit.sqlite: its directory is not writable, and audit.sqlite-wal holds changes only "
                    + "a -shm beside it can index; copy the database and its -wal to a writable place to read them")
        }
    }

    @Test(
        "a scenario without read permission is refused in one line",
        .enabled(if: unprivileged != nil, "runs as root without setpriv: permissions cannot be tested"))
    func unreadableScenario() throws {
        let sandbox = try Sandbox()
        try sandbox.copyExample()
        Self.openUp(sandbox, writable: true)
        chmod(sandbox.path("checkout.json"), 0o600)
        expectError(
            try sandbox.run(["record", "--scenario", "checkout.json"], wrapper: Self.unprivileged ?? []),
            "cannot read scenario checkout.json: permission denied")
        try expectEqual(sandbox.listing(), ["checkout.json"])
    }
}
