import AuditCore
import CSQLite
import Foundation

/// Types `edits` characters one at a time into a text view under audit (a caret at the end, as a
/// user types) and returns what the database stores per typed character: the `events` table's
/// pages, and the whole file, divided by `edits`. Each edit is an input and its three callbacks.
func measureTypedCharacters(edits: Int, database: String) throws -> (table: Double, file: Double) {
    let view = TextView(identifier: "note")
    let recorder = try Recorder(
        databasePath: database, session: NewSession(scenario: "bench", source: "{}", delegate: "bench"),
        catalog: .builtIn)
    try recorder.attach(to: view)
    view.beginEditing()
    for index in 0..<edits { view.type(index.isMultiple(of: 10) ? " " : "a") }
    let summary = recorder.finish()
    precondition(summary.failedWrites == 0 && view.text.utf16.count == edits)
    let size = measureSize(database: database)
    // measureSize divides by the events; a typed character is four of them.
    let events = Double(summary.events) / Double(edits)
    return (size.table * events, size.file * events)
}
