import AuditCore
import Foundation
import Testing
import XCTest

/// Expects a delegate to behave on `scenario` exactly as the stored baseline `name` did (Swift
/// Testing). Records the baseline when the record mode says so — by argument, or
/// `AUDITCTL_RECORD` (`all`, `missing`, `never`, `failed`; default `missing`) — and then fails,
/// so a test never passes on a baseline it did not compare with.
@discardableResult
public func expectSameBehaviour(
    _ name: String, scenario: Scenario, database: String, record: RecordMode? = nil,
    replay: ReplayMode = .interaction, delegate: () -> AnyObject, sourceLocation: SourceLocation = #_sourceLocation
) -> BehaviourOutcome? {
    do {
        let outcome = try check(name, scenario, database, record, replay, delegate)
        if !outcome.passed { Issue.record(Comment(rawValue: outcome.message), sourceLocation: sourceLocation) }
        return outcome
    } catch {
        Issue.record(error, sourceLocation: sourceLocation)
        return nil
    }
}

/// The XCTest spelling of `expectSameBehaviour`, named like XCTest's own assertions.
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func XCTAssertSameBehaviour(
    _ name: String, scenario: Scenario, database: String, record: RecordMode? = nil,
    replay: ReplayMode = .interaction, delegate: () -> AnyObject, file: StaticString = #filePath, line: UInt = #line
) -> BehaviourOutcome? {
    do {
        let outcome = try check(name, scenario, database, record, replay, delegate)
        if !outcome.passed { XCTFail(outcome.message, file: file, line: line) }
        return outcome
    } catch {
        XCTFail("\(error)", file: file, line: line)
        return nil
    }
}

private struct UnknownRecordMode: Error, CustomStringConvertible {
    let value: String
    var description: String {
        "\(RecordMode.environmentVariable)=\(value) names no record mode (use one of \(RecordMode.names.joined(separator: ", ")))"
    }
}

private func check(
    _ name: String, _ scenario: Scenario, _ database: String, _ record: RecordMode?, _ replay: ReplayMode,
    _ delegate: () -> AnyObject
) throws -> BehaviourOutcome {
    guard let mode = record ?? RecordMode.fromEnvironment() else {
        throw UnknownRecordMode(value: ProcessInfo.processInfo.environment[RecordMode.environmentVariable] ?? "")
    }
    return try BehaviourCheck(databasePath: database, mode: mode, replayMode: replay)
        .check(name, scenario: scenario, delegate: delegate)
}
