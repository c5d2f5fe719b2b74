import Foundation
import SharedTestSupport
import Testing

/// Every file the command line writes (`--html`, `minimize --output`, `export --output`) is made
/// the same way: never through a symbolic link, never over something that is not a plain file, mode
/// 0600 whatever the umask, and refused before the command does anything.
@Suite("Files the command line writes")
struct OutputFileTests {
    static let minimize = ["minimize", "--session", "1", "--delegate", "checkout.v2", "--output"]
    static let report = ["report", "--session", "1", "--html"]
    static let export = ["export", "--session", "1", "--output"]

    /// How the error line names what `command` writes.
    static func what(_ command: [String]) -> String {
        switch command[0] {
        case "minimize": "the scenario"
        case "export": "the export"
        default: "the HTML page"
        }
    }

    @Test("a symbolic link is refused, and the file it points to is left alone", arguments: [minimize, report, export])
    func aLinkIsNotWrittenThrough(_ command: [String]) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        try sandbox.write("victim", "root:x:0:0:root:/root:/bin/bash\n")
        try FileManager.default.createSymbolicLink(atPath: sandbox.path("out"), withDestinationPath: "victim")
        let before = try #require(sandbox.bytes("audit.sqlite"))
        expectError(
            try sandbox.run(command + ["out"]),
            "cannot write \(Self.what(command)) to out: it is a symbolic link (give the file's own path)")
        #expect(try String(contentsOfFile: sandbox.path("victim"), encoding: .utf8).hasPrefix("root:x:0:0"))
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    @Test("a FIFO is refused", arguments: [minimize, report, export])
    func aFIFOIsRefused(_ command: [String]) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        expectEqual(mkfifo(sandbox.path("pipe"), 0o600), 0)
        expectError(
            try sandbox.run(command + ["pipe"]), "cannot write \(Self.what(command)) to pipe: it is not a regular file")
    }

    @Test(
        "a new file is made 0600 under umask 000, and an old one replaced whole", arguments: [minimize, report, export])
    func modeAndReplacement(_ command: [String]) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let withoutUmask = ["/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\""]
        let fresh = try sandbox.run(command + ["new"], wrapper: withoutUmask)
        expectEqual(fresh.status, 0, "\(fresh)")
        try expectEqual(permissions(sandbox.path("new")), 0o600)
        try sandbox.write("old", "old contents")
        expectEqual(chmod(sandbox.path("old"), 0o644), 0)
        let replaced = try sandbox.run(command + ["old"], wrapper: withoutUmask)
        expectEqual(replaced.status, 0, "\(replaced)")
        try expectEqual(permissions(sandbox.path("old")), 0o600)
        #expect(try String(contentsOfFile: sandbox.path("old"), encoding: .utf8) != "old contents")
        #expect(!(try sandbox.listing()).contains { $0.hasSuffix(".tmp") })
    }

    private func permissions(_ path: String) throws -> mode_t {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw SandboxError(description: "no file at \(path)") }
        expectEqual(info.st_mode & S_IFMT, S_IFREG)
        return info.st_mode & 0o777
    }
}
