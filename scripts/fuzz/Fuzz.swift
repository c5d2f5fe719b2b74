import Foundation

/// libFuzzer targets, built by `scripts/fuzz.sh` with `swiftc -sanitize=fuzzer,address` from
/// AuditCore's sources. `FUZZ_TARGET` picks one:
///
/// - `scenario`: `Scenario(data:)` on the input; a scenario that parses is then run, as a dry run
///   is, without a delegate and with `checkout.v1`. Anything but a `ScenarioError` (a crash, a
///   precondition, a sanitizer report, a hang) is a finding.
/// - `query`: `ReadOnlyQuery.run` on the input as SQL, against a recorded copy of the checkout
///   example. Besides crashes, a finding is any change to the database's bytes or any new file
///   beside it other than an empty `-wal` and `-shm`: the guard must let nothing write.
enum FuzzTarget: String {
    case scenario
    case query

    /// Set once by `LLVMFuzzerInitialize`, before libFuzzer runs any input on its one thread.
    nonisolated(unsafe) static var current: FuzzTarget = .scenario
}

/// The query target's database, and its bytes as recorded.
struct QueryFixture {
    let directory: String
    let database: String
    let bytes: Data
    let files: Set<String>

    /// Set once by `LLVMFuzzerInitialize`, before libFuzzer runs any input on its one thread.
    nonisolated(unsafe) static var shared: QueryFixture?

    static func make() throws -> QueryFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("auditctl-fuzz-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let database = directory + "/audit.sqlite"
        _ = try ScenarioRunner.record(
            try Examples.checkout(), delegate: nil, registry: .examples, databasePath: database)
        return QueryFixture(
            directory: directory, database: database, bytes: try Data(contentsOf: URL(fileURLWithPath: database)),
            files: Set(try FileManager.default.contentsOfDirectory(atPath: directory)))
    }

    /// Stops the run (a libFuzzer finding) when the database or its directory changed.
    func verify(_ sql: String) {
        let now = (try? Data(contentsOf: URL(fileURLWithPath: database))) ?? Data()
        if now != bytes { fatalError("the query guard let a write through: \(sql.debugDescription)") }
        let files = Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
        for file in files.subtracting(self.files) {
            let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + file))?[.size] as? Int
            guard file == "audit.sqlite-wal" || file == "audit.sqlite-shm", file.hasSuffix("-shm") || size == 0 else {
                fatalError("the query guard let \(file) be written: \(sql.debugDescription)")
            }
        }
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? "scenario"
    guard let target = FuzzTarget(rawValue: name) else { fatalError("FUZZ_TARGET must be scenario or query") }
    FuzzTarget.current = target
    if target == .query {
        do {
            QueryFixture.shared = try QueryFixture.make()
        } catch {
            fatalError("cannot record the query fixture: \(error)")
        }
        atexit {
            if let directory = QueryFixture.shared?.directory { try? FileManager.default.removeItem(atPath: directory) }
        }
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>, _ count: Int) -> Int32 {
    let data = Data(bytes: start, count: count)
    switch FuzzTarget.current {
    case .scenario:
        guard let scenario = try? Scenario(data: data, catalog: .builtIn) else { return 0 }
        _ = try? ScenarioRunner.run(scenario, delegate: nil)
        if let delegate = try? DelegateRegistry.examples.entry(named: "checkout.v1").make() {
            withExtendedLifetime(delegate) { _ = try? ScenarioRunner.run(scenario, delegate: delegate) }
        }
    case .query:
        guard let fixture = QueryFixture.shared else { return 0 }
        let sql = String(decoding: data, as: UTF8.self)
        _ = try? ReadOnlyQuery.run(sql, databasePath: fixture.database, deadline: .milliseconds(200))
        fixture.verify(sql)
    }
    return 0
}
