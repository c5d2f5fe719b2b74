import AuditModel

extension AuditStore {
    /// Calls `body` with each of one session's events in `seq` order, as they are read, and with how
    /// deeply it is nested: 0 for an event in no other, one more than its parent's otherwise (the
    /// event `parentSeq` names, when that event comes before it in the session; 0 when none does).
    /// `show` prints a session this way, indenting each event by its depth.
    ///
    /// Holds the events the last one is nested in, not the session: calls on one thread nest, so
    /// an event's parent is among them. An event whose parent is not (the calls of two threads
    /// interleaved) has its depth counted by reading its parents from the database.
    ///
    /// - Complexity: O(*n*) for *n* events when each parent is among the events the one before is
    ///   nested in; an event whose parent is not costs a read per level of its depth. Memory grows
    ///   with the depth, not with the session.
    public func forEachNestedTimelineEvent(of id: Int64, _ body: (TimelineEvent, _ depth: Int) -> Void)
        throws(StoreError)
    {
        // The last event read, and the events it is nested in that come before it, outermost first.
        var chain: [(seq: Int64, depth: Int)] = []
        var failure: StoreError?
        try forEachTimelineEvent(of: id) { event in
            var depth = 0
            if let parent = event.parentSeq, parent < event.seq {
                if let index = chain.lastIndex(where: { $0.seq == parent }) {
                    depth = chain[index].depth + 1
                    chain.removeSubrange((index + 1)...)
                } else {
                    chain.removeAll(keepingCapacity: true)
                    do throws(StoreError) {
                        depth = try depthOfParents(from: parent, below: event.seq, in: id)
                    } catch {
                        failure = failure ?? error
                    }
                }
            } else {
                chain.removeAll(keepingCapacity: true)
            }
            chain.append((event.seq, depth))
            body(event, depth)
        }
        if let failure { throw failure }
    }

    /// How many events `parent`, its parent and so on make, each before the one nested in it, as
    /// the session's `timeline` holds them.
    private func depthOfParents(from parent: Int64, below seq: Int64, in session: Int64) throws(StoreError) -> Int {
        try storeOperation {
            let statement = try connection.cached("SELECT parent_seq FROM timeline WHERE session = ? AND seq = ?")
            var depth = 0
            var child = seq
            var next: Int64? = parent
            while let current = next, current < child {
                let found = try statement.rows([.integer(session), .integer(current)]) { row in
                    row.isNull(0) ? Int64?.none : row.int64(0)
                }
                guard let parentOfCurrent = found.first else { break }
                depth += 1
                child = current
                next = parentOfCurrent
            }
            return depth
        }
    }
}
