import AuditModel
import CSQLite

/// The `callbacks` table as replay and diff read it: each name, and the hash a fingerprint takes of
/// it (`EventFingerprint.nameHash`).
struct CallbackNames {
    var names = IDTable<StoredEvent.Name>()
    var hashes = IDTable<UInt64>()
}

extension AuditStore {
    /// The `callbacks` table, read once and kept while it is unchanged: a replay job reads every
    /// session's events and fingerprints through one store, and the names are the same for all.
    ///
    /// Kept until another connection commits a change to the database (`PRAGMA data_version`)
    /// or this one changes the table: interning a name (`internCallback`), importing, merging or
    /// pruning, and a writer's transaction rolling back, each forget it.
    func callbackNames() throws -> CallbackNames {
        try forgetCallbackNamesIfChanged()
        if let keptCallbackNames { return keptCallbackNames }
        var table = CallbackNames()
        let rows = try connection.cached("SELECT id, kind, protocol, name, labels FROM callbacks")
        let columns = StoredEvent.Name.Columns(rows)
        try rows.forEachRow { row in
            let id = row.int64(columns.id)
            let name = StoredEvent.Name(row: row, columns)
            table.names[id] = name
            // The stored bytes, as `EventFingerprint.nameHash` hashes a descriptor's texts.
            var hash = FNV1a().adding(row, column: columns.kind)
            if name.kind == .input { hash.add(string: "") } else { hash.add(row, column: columns.protocolName) }
            table.hashes[id] = hash.adding(row, column: columns.name).value
        }
        keptCallbackNames = table
        return table
    }

    /// Forgets the names interned and read through this connection when another connection has
    /// committed since they were checked (`PRAGMA data_version`): it may have renamed or pruned a
    /// name, and given its id to another. Inside a transaction, checked once (while this
    /// connection writes, no other can).
    func forgetCallbackNamesIfChanged() throws {
        if connection.inTransaction {
            guard callbacksCheckedIn != connection.transactionsBegun else { return }
            callbacksCheckedIn = connection.transactionsBegun
        }
        let version = try connection.scalarInt("PRAGMA data_version")
        if version != callbacksVersion { forgetCallbackNames() }
        callbacksVersion = version
    }

    /// Forgets the names interned and read through this connection: it changed `callbacks` (or
    /// rolled back a transaction that did).
    package func forgetCallbackNames() {
        internedCallbacks.removeAll()
        internedDescriptors.removeAll()
        keptCallbackNames = nil
    }
}
