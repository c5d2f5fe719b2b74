import Foundation
import Synchronization

/// Fixtures that take real work to make (a recording, a database of thousands of events) and that
/// tests only read or copy: made once per test process, by the first test that asks, and shared.
/// A test that changes one works on its own copy (`Sandbox.copyRecordedExample()`).
enum SharedFixtures {
    /// A directory for the fixtures' files, removed when the test process exits.
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "auditctl-fixtures-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: SharedFixtures.directory) }
        return url
    }()

    /// What `make` returned for `key`, made by the first caller (the others wait for it, and only
    /// those that ask for the same key). A failure is kept too, and thrown to every caller.
    static func once<Value: Sendable>(_ key: String, _ make: () throws -> Value) throws -> Value {
        let slot = slots.withLock { slots in
            if let slot = slots[key] { return slot }
            let slot = Slot()
            slots[key] = slot
            return slot
        }
        let result = slot.result.withLock { result in
            if let result { return result }
            let made: Result<any Sendable, SandboxError>
            do {
                made = .success(try make())
            } catch {
                made = .failure(SandboxError(description: "making the shared fixture '\(key)' failed: \(error)"))
            }
            result = made
            return made
        }
        guard let value = try result.get() as? Value else {
            throw SandboxError(description: "the shared fixture '\(key)' is not a \(Value.self)")
        }
        return value
    }

    private final class Slot: Sendable {
        let result = Mutex<Result<any Sendable, SandboxError>?>(nil)
    }

    private static let slots = Mutex<[String: Slot]>([:])

    /// A folder of `directory`, named `key`, that `make` fills once.
    static func folder(_ key: String, _ make: (URL) throws -> Void) throws -> URL {
        try once("folder: " + key) {
            let folder = directory.appendingPathComponent(key)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try make(folder)
            return folder
        }
    }

    /// Copies `source` to `destination` with its permissions (`copyItem` may not keep them, and the
    /// tests check that a database is owner-only, as auditctl makes it).
    static func copy(_ source: URL, to destination: URL) throws {
        try FileManager.default.copyItem(at: source, to: destination)
        let permissions = try FileManager.default.attributesOfItem(atPath: source.path)[.posixPermissions]
        if let permissions {
            try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: destination.path)
        }
    }
}

extension Sandbox {
    /// What `recordExample()` leaves in a fresh sandbox (`checkout.json`, and `audit.sqlite` holding
    /// session 1, the example recorded by the built `auditctl`), copied from one such recording made
    /// once per test process: for the tests that only need a recorded database to start from.
    func copyRecordedExample() throws {
        let folder = try SharedFixtures.folder("recorded-example") { folder in
            let sandbox = try Sandbox()
            guard try sandbox.recordExample() == 1, try sandbox.listing() == ["audit.sqlite", "checkout.json"] else {
                throw SandboxError(description: "recording the example left \(try sandbox.listing())")
            }
            for name in ["audit.sqlite", "checkout.json"] {
                try SharedFixtures.copy(
                    sandbox.directory.appendingPathComponent(name), to: folder.appendingPathComponent(name))
            }
        }
        for name in ["audit.sqlite", "checkout.json"] {
            try SharedFixtures.copy(folder.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
    }
}
