import Foundation
import SharedTestSupport
import Synchronization
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// Writers of one database take turns in the order they came (`WriterQueue`). Each queue here is a
/// connection of its own (its own open file description), as another process's would be; the
/// order is made by construction: tickets are taken on the test's thread before anyone waits.
@Suite("Writers take turns, first come first served")
struct WriterQueueTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    func queue() throws -> WriterQueue { try #require(WriterQueue(databasePath: database)) }

    @Test func turnsGoInTheOrderTicketsWereTaken() throws {
        let first = try queue()
        first.waitForTurn()
        // Three more take tickets in this order, then wait on threads started in the reverse order.
        let waiting = try (0..<3).map { _ in try queue() }
        for queue in waiting { queue.takeTicket() }
        let order = Mutex<[Int]>([])
        let done = DispatchGroup()
        for (index, queue) in waiting.enumerated().reversed() {
            nonisolated(unsafe) let queue = queue  // each queue is used by its own thread only from here
            done.enter()
            Thread.detachNewThread {
                queue.waitForTurn()
                order.withLock { $0.append(index) }
                queue.endTurn()
                done.leave()
            }
        }
        first.endTurn()
        done.wait()
        expectEqual(order.withLock { $0 }, [0, 1, 2])
    }

    @Test func aWriterThatLeavesTheLineLetsTheNextIn() throws {
        let first = try queue()
        first.waitForTurn()
        var leaving: WriterQueue? = try queue()
        leaving?.takeTicket()
        let last = try queue()
        last.takeTicket()
        leaving = nil  // its process died: the kernel drops its locks
        first.endTurn()
        last.waitForTurn()  // returns: the one that left does not hold the line
        last.endTurn()
        _ = leaving
    }

    @Test func aTransactionRunsInItsTurnAndCountsTheWait() throws {
        _ = try AuditStore(path: database, access: .write)
        let holder = try queue()
        holder.waitForTurn()
        let connection = try Connection(path: database, mode: .readWrite(create: false))
        connection.writers = try queue()
        connection.writers?.takeTicket()
        let behind = try queue()
        behind.takeTicket()
        nonisolated(unsafe) let writer = connection  // used by the thread below only, until `done`
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? writer.transaction { try writer.execute("CREATE TABLE written (x)") }
            done.signal()
        }
        holder.endTurn()
        // The next turn after the holder's is the transaction's: once it ends, the table is there.
        behind.waitForTurn()
        #expect(try Connection(path: database, mode: .readOnly).tableExists("written"))
        behind.endTurn()
        done.wait()
        #expect(connection.waitedNanoseconds > 0)
    }

    @Test func theLastConnectionRemovesTheFile() throws {
        var first: WriterQueue? = try queue()
        let path = try #require(first?.path)
        var second: WriterQueue? = try queue()
        #expect(FileManager.default.fileExists(atPath: path))
        first = nil
        #expect(FileManager.default.fileExists(atPath: path), "another connection still has it open")
        second = nil
        #expect(!FileManager.default.fileExists(atPath: path))
        _ = (first, second)
    }

    @Test func aRecordingLeavesNoQueueFileBehind() throws {
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        let control = SegmentedControl(identifier: "c", segments: ["a", "b"], selectedSegmentIndex: 0)
        try recorder.attach(to: control)
        control.tapSegment(1)
        #expect(FileManager.default.fileExists(atPath: database + "-writers"))
        expectEqual(recorder.finish().status, .complete)
        #expect(!FileManager.default.fileExists(atPath: database + "-writers"))
    }

    @Test func aLinkAtTheQueuePathIsNotFollowed() throws {
        let target = folder.path("elsewhere")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: target))
        expectEqual(symlink(target, database + "-writers"), 0)
        #expect(WriterQueue(databasePath: database) == nil)
        expectEqual(FileManager.default.contents(atPath: target), Data("keep".utf8))
        // Recording goes on without the queue.
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: View(identifier: "root"))  // a recorder attached to nothing stores no session
        expectEqual(recorder.finish().status, .complete)
    }
}
