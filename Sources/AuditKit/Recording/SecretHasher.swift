import AuditModel
import AuditStorage
import Synchronization

/// Stands in for the text of a secure widget (a `TextView` with `isSecureTextEntry`) in what is
/// recorded: `"hmac-sha256:"` and the HMAC-SHA256 of the text's UTF-8 under a key, in hexadecimal.
///
/// The text itself never reaches SQLite, so it is in neither the database, its WAL nor a journal.
/// Equal texts under one key give equal values, so diff and replay still see whether a secure
/// field got the same input; lengths and ranges (a selection, a caret) are recorded as they are.
/// Every recording uses its database's key (see `SecretKey`), made the first time secure text is
/// recorded; only when that key cannot be read or made does a recording hash under a random key
/// of its own.
public struct SecretHasher: Sendable {
    let key: [UInt8]

    static let prefix = SHA256.HMAC.storedPrefix

    init(key: [UInt8]) {
        self.key = key
    }

    /// The hasher of the database at `databasePath`, with its key (made when it has none).
    public init(databasePath: String) throws(StoreError) {
        key = try SecretKey.load(forDatabase: databasePath)
    }

    /// A hasher with a random key of its own: equal texts compare equal within what it hashes only.
    package static func ephemeral() -> SecretHasher {
        var random = SystemRandomNumberGenerator()
        return SecretHasher(key: (0..<SecretKey.byteCount).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    /// The value recorded in place of `text`.
    public func hash(_ text: String) -> String {
        Self.value(of: hmac(of: text))
    }

    /// The HMAC of `text` so far, to be extended with what is appended to it.
    func hmac(of text: String) -> SHA256.HMAC {
        var hmac = SHA256.HMAC(key: key)
        hmac.update(text.utf8)
        return hmac
    }

    /// The value recorded in place of the text `hmac` has been given.
    static func value(of hmac: SHA256.HMAC) -> String {
        prefix + SHA256.hexadecimal(hmac.finalized())
    }
}

extension Recorder {
    /// The hasher for this recording's secure text: the one set by `useSecrets(_:)`, else the
    /// database's, loaded (or its key made) on first use.
    var secrets: SecretHasher { SecretHashers.hasher(for: self) }

    /// Hashes this recording's secure text with `hasher` (a database's key). Call it before
    /// attaching: values hashed before with another key would not compare equal.
    package func useSecrets(_ hasher: SecretHasher) {
        SecretHashers.set(hasher, for: self)
    }
}

extension AuditLink {
    /// The hasher for the linked widget's secure text: its recording's; an isolated replay, which
    /// stores no text (and refuses sessions that typed secure text), hashes under a key of its own.
    var secrets: SecretHasher {
        switch sink {
        case .recorder(let recorder): recorder.secrets
        case .pin(let pin): pin.secrets
        }
    }
}

/// Which hasher each live recorder uses.
///
/// A side table, held weakly, so that a recording that never sees secure text never makes a key.
private enum SecretHashers {
    private struct Entry {
        weak var recorder: Recorder?
        var hasher: SecretHasher
    }

    private static let table = Mutex<[ObjectIdentifier: Entry]>([:])

    static func hasher(for recorder: Recorder) -> SecretHasher {
        table.withLock { table in
            if let entry = table[ObjectIdentifier(recorder)], entry.recorder === recorder { return entry.hasher }
            let hasher = (try? SecretHasher(databasePath: recorder.databasePath)) ?? SecretHasher.ephemeral()
            insert(Entry(recorder: recorder, hasher: hasher), into: &table)
            return hasher
        }
    }

    static func set(_ hasher: SecretHasher, for recorder: Recorder) {
        table.withLock { insert(Entry(recorder: recorder, hasher: hasher), into: &$0) }
    }

    /// Inserts `entry`, dropping the entries of recorders that are gone (their identifiers may be
    /// reused by new ones).
    private static func insert(_ entry: Entry, into table: inout [ObjectIdentifier: Entry]) {
        table = table.filter { $0.value.recorder != nil }
        table[ObjectIdentifier(entry.recorder!)] = entry
    }
}
