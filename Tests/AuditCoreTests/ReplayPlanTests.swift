import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditExamples
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// A replay's plan, read two ways: in one go (a replay job's way), and from chunks of events read
/// on another thread while the plan is built (a single replay's way). Both give the same plan,
/// and a problem found mid-way stops the reader and leaves the store usable.
@Suite("Replay plan")
struct ReplayPlanTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    /// Events per chunk in these tests (a replay reads 8,192 at a time).
    static let chunk = 1_000

    /// A recorded checkout long enough for its events to span three chunks or more.
    func recordLongSession() throws -> (session: Int64, events: Int) {
        let scenario = try ReplayTests.randomCheckout(seed: 7, count: Self.chunk + 200)
        let summary = try ScenarioRunner.record(
            scenario, delegate: "checkout.v2", registry: ReplayTests.registry, databasePath: database)
        try #require(summary.events > 2 * Self.chunk)
        return (summary.session, summary.events)
    }

    @Test func eventsAreDeliveredInChunksInOrderAndReadingStopsWhenAsked() throws {
        let (session, count) = try recordLongSession()
        let store = try AuditStore(path: database, access: .read)
        let whole = try store.storedEvents(of: session)
        expectEqual(whole.count, count)
        var chunks: [[StoredEvent]] = []
        var parsed = ParsedJSONCache()
        var fingerprints: [EventFingerprint]? = []
        try store.storedEvents(of: session, inChunksOf: Self.chunk, parsed: &parsed, fingerprints: &fingerprints) {
            chunk in
            chunks.append(chunk)
            return true
        }
        #expect(chunks.count >= 3)
        #expect(chunks.dropLast().allSatisfy { $0.count == Self.chunk })
        expectEqual(chunks.last?.count, count - Self.chunk * (chunks.count - 1))
        expectEqual(chunks.joined().map(\.seq), whole.map(\.seq))
        expectEqual(chunks.joined().map(\.answer), whole.map(\.answer))
        expectEqual(fingerprints, (try store.fingerprints(of: session)))

        var delivered = 0
        var none: [EventFingerprint]?
        try store.storedEvents(of: session, inChunksOf: Self.chunk, parsed: &parsed, fingerprints: &none) { _ in
            delivered += 1
            return false
        }
        expectEqual(delivered, 1)
        // The statement was reset: the store reads the session again from its start.
        try expectEqual(store.storedEvents(of: session).map(\.seq), whole.map(\.seq))
    }

    /// A replay job reads every session through one store, which keeps the `callbacks` table it
    /// read: it reads the table again once another connection commits a change, or it interns a
    /// name itself.
    @Test func callbackNamesAreReadAgainWhenTheTableChanges() throws {
        let (session, _) = try recordLongSession()
        let store = try AuditStore(path: database, access: .write)
        let before = try store.storedEvents(of: session)
        let fingerprints = try store.fingerprints(of: session)
        try expectEqual(store.callbackNames().names[before[1].callbackID]?.name, before[1].callback)

        // Another connection renames every callback: this store's events and fingerprints follow.
        try sqlite(database, "UPDATE callbacks SET name = name || '2' WHERE kind = 'callback'")
        let after = try store.storedEvents(of: session)
        #expect(
            zip(before, after).allSatisfy {
                $0.kind == .input ? $0.callback == $1.callback : $1.callback == $0.callback + "2"
            })
        #expect(zip(fingerprints, try store.fingerprints(of: session)).contains { $0.identity != $1.identity })

        // A name this store interns is found at once.
        let turn = CallbackDescriptor(input: "turn", of: "ReplayPlanDial", arguments: ["to"])
        let id = try store.internCallback(turn)
        try expectEqual(store.callbackNames().names[id]?.name, "turn")
        try expectEqual(store.callbackNames().names[id]?.kind, .input)
    }

    /// Ids interned on a connection are forgotten once another connection commits: a name it
    /// deleted may have left its id to another name.
    /// A widget of another package may make a new descriptor for every call: each is interned as
    /// the name it is, without a write once that name is known, and the ids kept by descriptor
    /// stay bounded however many are made.
    @Test func descriptorsMadeForEachCallAreInternedByTheirName() throws {
        let store = try AuditStore(path: database, access: .write)
        let made = AuditStore.internedDescriptorLimit + 10
        let ids = try (0..<made).map { _ in
            try store.internCallback(CallbackDescriptor(input: "turn", of: "MadeEachTime", arguments: []))
        }
        expectEqual(Set(ids).count, 1)
        #expect(store.internedDescriptors.count <= AuditStore.internedDescriptorLimit)
        expectEqual(store.internedCallbacks.count, 1)
    }

    @Test func anInternedIdIsNotUsedAfterAnotherConnectionGaveItToAnotherName() throws {
        let store = try AuditStore(path: database, access: .write)
        let turn = CallbackDescriptor(input: "turn", of: "ReplayPlanDial", arguments: ["to"])
        let id = try store.internCallback(turn)
        // Another connection deletes the name (the highest id) and adds another, which takes its id.
        try sqlite(
            database,
            "DELETE FROM callbacks WHERE id = \(id); "
                + "INSERT INTO callbacks (kind, protocol, name, labels) VALUES ('input', 'Other', 'push', '[]')")
        let again = try store.internCallback(turn)
        #expect(again != id)
        try expectEqual(store.callbackNames().names[id]?.name, "push")
        try expectEqual(store.callbackNames().names[again]?.name, "turn")
    }

    @Test func aPlanBuiltFromChunksEqualsOneBuiltInOneGo() throws {
        let (session, _) = try recordLongSession()
        let store = try AuditStore(path: database, access: .read)
        let streamed = try ReplayPlan(session: session, store: store, catalog: .builtIn, chunkSize: Self.chunk)
        let whole = try ReplayPlan(session: session, store: store, catalog: .builtIn, parsed: ParsedOnce())
        expectEqual(streamed.events.map(\.seq), whole.events.map(\.seq))
        expectEqual(streamed.events.map(\.answer), whole.events.map(\.answer))
        expectEqual(streamed.steps, whole.steps)
        expectEqual(streamed.steps.count, Self.chunk + 200)
        expectEqual(streamed.callbacks, whole.callbacks)
        expectEqual(streamed.widgetIDs, whole.widgetIDs)
        expectEqual(streamed.delegateInputs, whole.delegateInputs)
        #expect(zip(streamed.invokers, whole.invokers).allSatisfy { $0?.descriptor === $1?.descriptor })
        #expect(zip(streamed.inputs, whole.inputs).allSatisfy { $0 === $1 })
        let report = try Replayer(databasePath: database, registry: ReplayTests.registry, catalog: .builtIn)
            .replay(session: session, delegate: "checkout.v2", mode: .isolated)
        #expect(report.identical)
    }

    /// An input whose stored arguments no longer fit its declaration, in the third chunk: the plan
    /// names it while the reader may still be reading, and the store can be used at once.
    @Test func aBadInputInALaterChunkIsNamedAndTheStoreStaysUsable() throws {
        let (session, count) = try recordLongSession()
        let seq = try #require(
            try AuditStore(path: database, access: .read).storedEvents(of: session).first {
                $0.seq > Int64(2 * Self.chunk) && $0.kind == .input && $0.parent == nil
            }?.seq)
        try sqlite(database, "UPDATE events SET args = '[\"three\"]' WHERE session = \(session) AND seq = \(seq)")
        let store = try AuditStore(path: database, access: .read)
        #expect {
            try ReplayPlan(session: session, store: store, catalog: .builtIn, chunkSize: Self.chunk)
        } throws: { error in
            guard case ReplayError.unreplayableInput(session, seq, _) = error else { return false }
            return true
        }
        try expectEqual(store.storedEvents(of: session).count, count)
    }
}
