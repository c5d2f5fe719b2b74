import AuditCore
import AuditTesting
import Foundation
import Testing
import XCTest

@testable import AuditExamples

/// The XCTest spelling of the behaviour check, as an app's XCTest suite would use it.
final class XCTestHelperTests: XCTestCase {
    func testSameBehaviourPassesAgainstARecordedBaseline() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "xctest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "audit.sqlite").path
        let scenario = try Examples.checkout()
        let make: () -> AnyObject = { try! DelegateRegistry.examples.entry(named: "checkout.v1").make() }

        let recorded = try BehaviourCheck(databasePath: database, catalog: .builtIn, mode: .missing).check(
            "flow", scenario: scenario, delegate: make)
        guard case .recorded = recorded else { return XCTFail("expected the baseline to be recorded, got \(recorded)") }
        let outcome = XCTAssertSameBehaviour(
            "flow", scenario: scenario, database: database, record: .never, delegate: make)
        XCTAssertEqual(outcome?.passed, true)
    }

    func testSameBehaviourOfATreeBuiltInCode() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "xctest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "audit.sqlite").path
        let recorded = try BehaviourCheck(databasePath: database, catalog: .builtIn, mode: .missing).check(
            "taps", delegate: { LoggingDelegate() }, build: BehaviourCheckTests.build, drive: BehaviourCheckTests.drive)
        guard case .recorded = recorded else { return XCTFail("expected the baseline to be recorded, got \(recorded)") }
        let outcome = XCTAssertSameBehaviour(
            "taps", catalog: .builtIn, database: database, record: .never, delegate: { LoggingDelegate() },
            build: BehaviourCheckTests.build, drive: BehaviourCheckTests.drive)
        XCTAssertEqual(outcome?.passed, true)
    }
}
