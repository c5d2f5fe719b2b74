import AuditCore
import Foundation
import Testing
import XCTest

/// Expects a delegate to behave on `scenario` exactly as the stored baseline `name` did (Swift
/// Testing). Records the baseline when the record mode says so — by argument, or
/// `AUDITCTL_RECORD` (`all`, `missing`, `never`, `failed`; default `missing`) — and then fails,
/// so a test never passes on a baseline it did not compare with.
///
/// The baselines live in `database`; by default in `Tests/__Baselines__/<test target>/<test
/// file>.sqlite` (see `baselineDatabase(forTestFile:)`; commit that folder). A comparing run
/// leaves that file's bytes and its folder as they were; a recording replaces it whole. A
/// comparing run fails when `scenario`'s inputs are not the baseline's: record again then.
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
/// with no scenario file. `catalog` registers every widget kind of the tree. A comparing run fails
/// when the inputs `drive` performs are not the baseline's: record again when they change.
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

/// Where a test file's baselines are kept by default: beside the test targets, outside each of
/// them, so that SwiftPM neither builds nor warns about them and `Package.swift` needs no
/// `exclude:`.
///
/// The nearest folder named `Tests` above the test file holds `__Baselines__`, which mirrors the
/// folders below `Tests`: `Tests/AppTests/Login/LoginTests.swift` keeps its baselines in
/// `Tests/__Baselines__/AppTests/Login/LoginTests.sqlite`. A test file with no `Tests` folder
/// above it keeps them in `__Baselines__/<file name>.sqlite` beside it, inside its target, which
/// then needs `exclude: ["__Baselines__"]`.
public func baselineDatabase(forTestFile filePath: StaticString) -> String {
    baselineDatabases(forTestFile: "\(filePath)").current
}

/// The default baseline database of the test file at `path`: `baselineDatabase(forTestFile:)`,
/// unless it is missing and the file's baselines are still where they were kept before (then the
/// error says where to move them).
package func defaultBaselineDatabase(forTestFile path: String) throws -> String {
    let (current, former) = baselineDatabases(forTestFile: path)
    let files = FileManager.default
    if former != current, !files.fileExists(atPath: current), files.fileExists(atPath: former) {
        throw BaselinesToMove(from: former, to: current)
    }
    return current
}

/// Where the baselines of the test file at `path` are kept (see `baselineDatabase(forTestFile:)`),
/// and where they were kept before they moved out of the test targets: `__Baselines__/<file
/// name>.sqlite` beside it.
private func baselineDatabases(forTestFile path: String) -> (current: String, former: String) {
    let file = URL(fileURLWithPath: path).standardizedFileURL
    let name = file.deletingPathExtension().lastPathComponent + ".sqlite"
    let former = file.deletingLastPathComponent().appending(path: "__Baselines__").appending(path: name).path
    let folders = Array(file.deletingLastPathComponent().pathComponents.dropFirst())  // "/" first
    guard let tests = folders.lastIndex(of: "Tests") else { return (former, former) }
    let root = folders[...tests].reduce(URL(fileURLWithPath: "/")) { $0.appending(path: $1) }
    let current = folders[(tests + 1)...].reduce(root.appending(path: "__Baselines__")) { $0.appending(path: $1) }
    return (current.appending(path: name).path, former)
}

/// Baselines found where they were kept before, not where they are now: to be moved, not recorded
/// again.
private struct BaselinesToMove: Error, CustomStringConvertible {
    let from: String
    let to: String
    var description: String {
        "the baselines of this test file are at \(from), inside its test target; move them to \(to) "
            + "(outside every target, where SwiftPM does not warn about them)"
    }
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
    let path = try database ?? defaultBaselineDatabase(forTestFile: "\(filePath)")
    return try body(BehaviourCheck(databasePath: path, catalog: catalog, mode: mode, replayMode: replay))
}
