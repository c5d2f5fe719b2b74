import AuditCore
import Foundation
import Testing
import XCTest

/// Expects a delegate to behave on `scenario` exactly as the stored baseline `name` did (Swift
/// Testing). Records the baseline when the record mode says so — by argument, or
/// `AUDITCTL_RECORD` (`all`, `missing`, `never`, `failed`; default `missing`) — and then fails,
/// so a test never passes on a baseline it did not compare with.
///
/// The baselines live in `database`; by default in `__Baselines__/<test file>.sqlite` beside the
/// test file, as snapshot testing keeps its snapshots (commit that folder).
@discardableResult
public func expectSameBehaviour(
    _ name: String, scenario: Scenario, database: String? = nil, record: RecordMode? = nil,
    replay: ReplayMode = .interaction, delegate: () -> AnyObject, filePath: StaticString = #filePath,
    sourceLocation: SourceLocation = #_sourceLocation
) -> BehaviourOutcome? {
    expect(sourceLocation) {
        try check(database, filePath, scenario.catalog, record, replay) { check in
            try check.check(name, scenario: scenario, delegate: delegate)
        }
    }
}

/// Expects a delegate to behave, on the widget tree `build` makes and the inputs `drive`
/// performs, exactly as the stored baseline `name` did (Swift Testing): for a widget of your own,
/// with no scenario file. `catalog` registers every widget kind of the tree.
///
/// ```swift
/// @Test func volumeNeverExceedsTheLimit() {
///     expectSameBehaviour(
///         "volume", catalog: .builtIn.adding(Slider.kind), delegate: { VolumeController() },
///         build: { Slider(identifier: "volume", value: 0.2) },
///         drive: { root in (root as! Slider).drag(to: 0.9) })
/// }
/// ```
@discardableResult
public func expectSameBehaviour(
    _ name: String, catalog: WidgetCatalog, database: String? = nil, record: RecordMode? = nil,
    replay: ReplayMode = .interaction, delegate: () -> AnyObject, build: () -> View, drive: (View) throws -> Void,
    filePath: StaticString = #filePath, sourceLocation: SourceLocation = #_sourceLocation
) -> BehaviourOutcome? {
    expect(sourceLocation) {
        try check(database, filePath, catalog, record, replay) { check in
            try check.check(name, delegate: delegate, build: build, drive: drive)
        }
    }
}

/// The XCTest spelling of `expectSameBehaviour(_:scenario:…)`, named like XCTest's own assertions.
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func XCTAssertSameBehaviour(
    _ name: String, scenario: Scenario, database: String? = nil, record: RecordMode? = nil,
    replay: ReplayMode = .interaction, delegate: () -> AnyObject, file: StaticString = #filePath, line: UInt = #line
) -> BehaviourOutcome? {
    assert(file, line) {
        try check(database, file, scenario.catalog, record, replay) { check in
            try check.check(name, scenario: scenario, delegate: delegate)
        }
    }
}

/// The XCTest spelling of `expectSameBehaviour(_:catalog:…build:drive:)`.
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func XCTAssertSameBehaviour(
    _ name: String, catalog: WidgetCatalog, database: String? = nil, record: RecordMode? = nil,
    replay: ReplayMode = .interaction, delegate: () -> AnyObject, build: () -> View, drive: (View) throws -> Void,
    file: StaticString = #filePath, line: UInt = #line
) -> BehaviourOutcome? {
    assert(file, line) {
        try check(database, file, catalog, record, replay) { check in
            try check.check(name, delegate: delegate, build: build, drive: drive)
        }
    }
}

/// Where a test file's baselines are kept by default: `__Baselines__/<file name>.sqlite` in the
/// test file's folder.
public func baselineDatabase(forTestFile filePath: StaticString) -> String {
    let file = URL(fileURLWithPath: "\(filePath)")
    return file.deletingLastPathComponent().appending(path: "__Baselines__")
        .appending(path: file.deletingPathExtension().lastPathComponent + ".sqlite").path
}

private func expect(_ sourceLocation: SourceLocation, _ body: () throws -> BehaviourOutcome) -> BehaviourOutcome? {
    do {
        let outcome = try body()
        if !outcome.passed { Issue.record(Comment(rawValue: outcome.message), sourceLocation: sourceLocation) }
        return outcome
    } catch {
        Issue.record(error, sourceLocation: sourceLocation)
        return nil
    }
}

private func assert(_ file: StaticString, _ line: UInt, _ body: () throws -> BehaviourOutcome) -> BehaviourOutcome? {
    do {
        let outcome = try body()
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
    _ database: String?, _ filePath: StaticString, _ catalog: WidgetCatalog, _ record: RecordMode?,
    _ replay: ReplayMode, _ body: (BehaviourCheck) throws -> BehaviourOutcome
) throws -> BehaviourOutcome {
    guard let mode = record ?? RecordMode.fromEnvironment() else {
        throw UnknownRecordMode(value: ProcessInfo.processInfo.environment[RecordMode.environmentVariable] ?? "")
    }
    let path = database ?? baselineDatabase(forTestFile: filePath)
    if database == nil {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    }
    return try body(BehaviourCheck(databasePath: path, catalog: catalog, mode: mode, replayMode: replay))
}
