import Foundation

/// A size-limited tmpfs, mounted for one test and unmounted when released: a real full disk.
public final class Tmpfs {
    public let directory: URL

    /// Whether this process may mount one (root with CAP_SYS_ADMIN, as in CI containers run privileged).
    public static let canMount: Bool = (try? Tmpfs(size: "64k")) != nil

    public init(size: String) throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "auditctl-tmpfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard getuid() == 0, Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", directory.path])
        else {
            try? FileManager.default.removeItem(at: directory)
            throw CocoaError(.fileWriteNoPermission)  // cannot mount here
        }
    }

    deinit {
        _ = Self.run("/bin/umount", ["-l", directory.path])
        try? FileManager.default.removeItem(at: directory)
    }

    public func path(_ name: String) -> String { directory.appending(path: name).path }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
