import AuditTesting
import Foundation
import SharedTestSupport
import Synchronization
import Testing

@testable import AuditCore
@testable import AuditExamples
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("Baselines: a comparing check leaves the committed database as it was; a recording replaces it whole")
struct BaselineFileTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("Tests/__Baselines__/AppTests/CheckoutTests.sqlite") }

    init() throws {
        try FileManager.default.createDirectory(
            atPath: folder.path("Tests/__Baselines__/AppTests"), withIntermediateDirectories: true)
    }

    func check(_ mode: RecordMode, _ version: CheckoutDelegate.Version, replay: ReplayMode = .interaction) throws
        -> BehaviourOutcome
    {
        try BehaviourCheck(databasePath: database, catalog: .builtIn, mode: mode, replayMode: replay)
            .check("checkout", scenario: try Examples.checkout()) { CheckoutDelegate(version: version) }
    }

    /// Every file and folder under the test's folder: a file with the SHA-256 of its bytes, each
    /// with its modification time (a folder's changes when an entry is made or removed in it).
    func state() throws -> [String: String] {
        var state: [String: String] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder.url.path) + ["."] {
            let path = folder.path(name)
            var info = stat()
            guard stat(path, &info) == 0 else { throw Failure("cannot stat \(path)") }
            let modified = "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            state[name] =
                info.st_mode & S_IFMT == S_IFDIR
                ? "folder, modified \(modified)"
                : "\(SHA256.hex(fileBytes(path) ?? Data())), modified \(modified)"
        }
        return state
    }

    /// The files under the test's folder, folders left out.
    func files() throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: folder.url.path).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder.path(name), isDirectory: &isFolder)
                && !isFolder.boolValue
        }.sorted()
    }

    func recordBaseline() throws {
        guard case .recorded = try check(.missing, .v1) else { throw Failure("expected a recording") }
    }

    @Test(arguments: [ReplayMode.interaction, .isolated], [RecordMode.never, .missing, .failed])
    func aMatchingComparisonLeavesTheFolderAsItWas(replay: ReplayMode, mode: RecordMode) throws {
        try recordBaseline()
        let before = try state()
        let outcome = try check(mode, .v1, replay: replay)
        #expect(outcome.passed, "\(outcome.message)")
        try expectEqual(state(), before)
    }

    @Test(arguments: [ReplayMode.interaction, .isolated], [RecordMode.never, .missing])
    func aFailingComparisonLeavesTheFolderAsItWas(replay: ReplayMode, mode: RecordMode) throws {
        try recordBaseline()
        let before = try state()
        guard case .differed(let report) = try check(mode, .v2, replay: replay) else {
            throw Failure("expected a difference")
        }
        #expect(report.firstDivergence != nil)
        try expectEqual(state(), before)
    }

    @Test func theSwiftTestingHelperComparesWithoutWriting() throws {
        try recordBaseline()
        let before = try state()
        let scenario = try Examples.checkout()
        let same = expectSameBehaviour("checkout", scenario: scenario, database: database, record: .never) {
            CheckoutDelegate(version: .v1)
        }
        expectEqual(same?.passed, true)
        withKnownIssue {
            expectSameBehaviour("checkout", scenario: scenario, database: database, record: .never) {
                CheckoutDelegate(version: .v2)
            }
        }
        try expectEqual(state(), before)
    }

    @Test func aRecordingLeavesTheDatabaseAloneInItsFolder() throws {
        try recordBaseline()
        try expectEqual(files(), ["Tests/__Baselines__/AppTests/CheckoutTests.sqlite"])
        guard case .recorded(let second, _) = try check(.all, .v2) else { throw Failure("expected a recording") }
        try expectEqual(files(), ["Tests/__Baselines__/AppTests/CheckoutTests.sqlite"])
        // Whole, in rollback-journal mode (read without a -shm), readable by its owner only.
        let header = try #require(fileBytes(database)).prefix(20)
        expectEqual(Array(header.suffix(2)), [1, 1])
        var info = stat()
        #expect(stat(database, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let store = try AuditStore(path: database, access: .readUntrustedSQL)
        try expectEqual(store.latestBaseline(named: "checkout"), second)
        #expect(try store.sessions().filter { $0.replayOf != nil }.isEmpty)
    }

    @Test func aRecordingThatThrowsLeavesNoFile() throws {
        struct Refused: Error {}
        let inCode = BehaviourCheck(databasePath: database, catalog: .builtIn, mode: .all)
        #expect(throws: Refused.self) {
            try inCode.check("taps", delegate: { LoggingDelegate() }, build: BehaviourCheckTests.build) { root in
                BehaviourCheckTests.drive(root)
                throw Refused()
            }
        }
        try expectEqual(files(), [])
        // Over an existing baseline: it stays as it was, and nothing is left beside it.
        try recordBaseline()
        let before = try state()
        #expect(throws: Refused.self) {
            try inCode.check("taps", delegate: { LoggingDelegate() }, build: BehaviourCheckTests.build) { root in
                BehaviourCheckTests.drive(root)
                throw Refused()
            }
        }
        try expectEqual(state(), before)
    }

    @Test func recordingsAtOnceEachKeepTheirSession() throws {
        let database = self.database
        let names = (0..<4).map { "taps-\($0)" }
        let outcomes = Mutex<[String: Int64]>([:])
        DispatchQueue.concurrentPerform(iterations: names.count) { index in
            let check = BehaviourCheck(databasePath: database, catalog: .builtIn, mode: .missing)
            let outcome = try? check.check(
                names[index], delegate: { LoggingDelegate() }, build: BehaviourCheckTests.build,
                drive: BehaviourCheckTests.drive)
            if case .recorded(let session, _)? = outcome { outcomes.withLock { $0[names[index]] = session } }
        }
        let recorded = outcomes.withLock { $0 }
        expectEqual(recorded.count, names.count)
        let store = try AuditStore(path: database, access: .readUntrustedSQL)
        for (name, session) in recorded {
            try expectEqual(store.latestBaseline(named: name), session)
        }
        try expectEqual(files(), ["Tests/__Baselines__/AppTests/CheckoutTests.sqlite"])
    }

    @Test func theKeyOfSecureTextGoesWithTheBaseline() throws {
        let text = """
            { "name": "login", "root": { "kind": "View", "id": "login", "children": [
                { "kind": "TextView", "id": "user", "text": "ada" },
                { "kind": "TextView", "id": "password", "secure": true } ] },
              "steps": [ { "action": "typeText", "widget": "login/user", "text": "lovelace" } ] }
            """
        let scenario = try Scenario(data: Data(text.utf8), catalog: .builtIn)
        func check(_ mode: RecordMode) throws -> BehaviourOutcome {
            try BehaviourCheck(databasePath: database, catalog: .builtIn, mode: mode)
                .check("login", scenario: scenario) { LoggingTextDelegate() }
        }
        guard case .recorded = try check(.missing) else { throw Failure("expected a recording") }
        let baseline = "Tests/__Baselines__/AppTests/CheckoutTests.sqlite"
        try expectEqual(files(), [baseline, baseline + "-key"])
        let before = try state()
        let outcome = try check(.never)
        #expect(outcome.passed, "\(outcome.message)")
        try expectEqual(state(), before)
        // A later recording keeps the key, so equal secure texts keep hashing equal.
        let key = try #require(fileBytes(database + "-key"))
        guard case .recorded = try check(.all) else { throw Failure("expected a recording") }
        expectEqual(fileBytes(database + "-key"), key)
        try expectEqual(files(), [baseline, baseline + "-key"])
    }

    @Test func aWALWithChangesBesideTheBaselineIsRefused() throws {
        try recordBaseline()
        try Data(repeating: 1, count: 32).write(to: URL(fileURLWithPath: database + "-wal"))
        #expect {
            try check(.never, .v1)
        } throws: { error in
            "\(error)".contains("\(database)-wal holds changes not yet in it")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

@Suite("Where baselines live by default")
struct BaselineLocationTests {
    @Test(arguments: [
        ("/work/app/Tests/AppTests/CheckoutTests.swift", "/work/app/Tests/__Baselines__/AppTests/CheckoutTests.sqlite"),
        (
            "/work/app/Tests/AppTests/Login/LoginTests.swift",
            "/work/app/Tests/__Baselines__/AppTests/Login/LoginTests.sqlite"
        ),
        ("/work/Tests/app/Tests/AppTests/A.swift", "/work/Tests/app/Tests/__Baselines__/AppTests/A.sqlite"),
        ("/work/app/Checks/AppChecks/A.swift", "/work/app/Checks/AppChecks/__Baselines__/A.sqlite"),
    ])
    func outsideTheTestTargetsUnderTests(file: String, baselines: String) throws {
        try expectEqual(defaultBaselineDatabase(forTestFile: file), baselines)
    }

    @Test func theStaticStringSpellingAgrees() {
        expectEqual(
            baselineDatabase(forTestFile: "/work/app/Tests/AppTests/CheckoutTests.swift"),
            "/work/app/Tests/__Baselines__/AppTests/CheckoutTests.sqlite")
    }

    @Test func baselinesStillInsideTheTargetAreToBeMovedNotRecordedAgain() throws {
        let folder = TemporaryDirectory()
        let former = folder.path("Tests/AppTests/__Baselines__/CheckoutTests.sqlite")
        try FileManager.default.createDirectory(
            atPath: (former as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data([1]).write(to: URL(fileURLWithPath: former))
        let file = folder.path("Tests/AppTests/CheckoutTests.swift")
        #expect {
            try defaultBaselineDatabase(forTestFile: file)
        } throws: { error in
            "\(error)"
                == "the baselines of this test file are at \(former), inside its test target; move them to "
                + "\(folder.path("Tests/__Baselines__/AppTests/CheckoutTests.sqlite")) (outside every target, "
                + "where SwiftPM does not warn about them)"
        }
    }
}
