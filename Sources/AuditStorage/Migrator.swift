import AuditModel
import Foundation

/// One schema migration, embedded in the build from `Migrations/NNNN_name.sql`.
struct Migration: Sendable {
    let version: Int
    let name: String
    let sql: String
    let sha256: String

    /// Every migration this build knows, in version order.
    static let all: [Migration] = embeddedMigrationFiles.map { file in
        let bytes = Data(base64Encoded: file.base64) ?? Data()
        let parts = file.file.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, let version = Int(parts[0]) else {
            preconditionFailure("migration file \(file.file).sql is not named NNNN_name.sql")
        }
        return Migration(
            version: version, name: String(parts[1]), sql: String(decoding: bytes, as: UTF8.self),
            sha256: SHA256.hex(bytes))
    }
    .sorted { $0.version < $1.version }

    /// `PRAGMA application_id` of every auditctl database ('AUDT').
    static let applicationID: Int64 = 1_096_107_092
}

/// Checks a database against this build's migrations and applies the missing ones.
///
/// Checks come first and change nothing: a database of another application, one that holds a
/// migration this build does not know, or one whose recorded checksum differs is refused before
/// anything is written. Each pending migration then runs in its own `BEGIN IMMEDIATE` transaction
/// together with its `schema_migrations` row.
enum Migrator {
    /// Verifies `connection`'s database; returns the migrations it still lacks.
    static func pending(on connection: Connection, migrations: [Migration] = Migration.all) throws -> [Migration] {
        let path = connection.path
        let applicationID = try connection.scalarInt("PRAGMA application_id") ?? 0
        let objects = try connection.scalarInt("SELECT count(*) FROM sqlite_schema") ?? 0
        if applicationID != 0 && applicationID != Migration.applicationID {
            throw StoreError.notAnAuditDatabase(path: path, reason: "its application_id is \(applicationID)")
        }
        let hasLedger = try connection.tableExists("schema_migrations")
        if objects > 0 && !hasLedger {
            throw StoreError.notAnAuditDatabase(path: path, reason: "it has tables but no schema_migrations")
        }
        guard hasLedger else { return migrations }

        let applied = try connection.prepare("SELECT version, name, sha256 FROM schema_migrations ORDER BY version")
            .rows { (version: $0.int("version"), name: $0.string("name") ?? "", sha256: $0.string("sha256") ?? "") }
        let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version, $0) })
        for row in applied {
            guard let migration = known[row.version] else {
                throw StoreError.unknownMigration(path: path, version: row.version, name: row.name)
            }
            guard migration.sha256 == row.sha256 else {
                throw StoreError.checksumMismatch(path: path, version: row.version, name: row.name)
            }
        }
        let appliedVersions = Set(applied.map(\.version))
        return migrations.filter { !appliedVersions.contains($0.version) }
    }

    /// Verifies the database, switches it to WAL and applies every pending migration.
    ///
    /// Safe when several processes open a new database at once: each migration is chosen inside
    /// the write transaction that applies it, so only the first process applies it.
    static func migrate(_ connection: Connection, migrations: [Migration] = Migration.all) throws {
        guard try !pending(on: connection, migrations: migrations).isEmpty else {
            try connection.enableWAL()
            return
        }
        try connection.enableWAL()
        var finished = false
        while !finished {
            finished = try connection.transaction {
                guard let migration = try pending(on: connection, migrations: migrations).first else { return true }
                try connection.execute(migration.sql)
                try connection.cached(
                    """
                    INSERT INTO schema_migrations (version, name, sha256, applied_at)
                    VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                    """
                ).execute([.integer(Int64(migration.version)), .text(migration.name), .text(migration.sha256)])
                return false
            }
        }
    }
}
