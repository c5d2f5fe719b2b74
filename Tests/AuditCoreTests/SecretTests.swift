import Foundation
import SharedTestSupport
import Synchronization
import Testing

@testable import AuditCore
@testable import AuditExamples
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

/// A secure text view's text never reaches the database: a keyed hash is recorded in its place.
@Suite("Secrets: secure text is recorded as a keyed hash")
struct SecretTests {
    let folder = TemporaryDirectory()
    var database: String { folder.path("audit.sqlite") }

    static let secret = "correct horse battery staple"

    @Test(
        "HMAC-SHA256 matches RFC 4231",
        arguments: [
            (
                [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            // A key longer than the block is hashed first.
            (
                [UInt8](repeating: 0xaa, count: 131),
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
        ])
    func hmacMatchesTheRFC(key: [UInt8], message: [UInt8], expected: String) {
        expectEqual(SHA256.hexadecimal(SHA256.hmac(key: key, message: message)), expected)
    }

    /// FIPS 180-4's examples, a message of every length across two block boundaries given in
    /// random pieces, and HMAC given in pieces: a stream gives what one call on the whole gives.
    @Test func aDigestGivenInPiecesIsTheDigestOfTheWhole() {
        expectEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        expectEqual(
            SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        expectEqual(
            SHA256.hex(repeatElement(UInt8(ascii: "a"), count: 1_000_000)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        var random = SeededGenerator(seed: 12)
        let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        for length in 0...130 {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            var stream = SHA256.Stream()
            var hmac = SHA256.HMAC(key: key)
            var start = 0
            while start < length {
                let end = min(length, start + Int.random(in: 0...70, using: &random))
                stream.update(message[start..<end])
                hmac.update(message[start..<end])
                start = end
            }
            expectEqual(stream.finalized(), SHA256.digest(message), "length \(length)")
            expectEqual(hmac.finalized(), SHA256.hmac(key: key, message: message), "length \(length)")
        }
    }

    /// A secure view typed into at its end hashes only what is typed: hashing the whole text at
    /// each edit took time in the square of the edits (hours on the worst file the limits admit).
    /// An edit elsewhere hashes the text once more. Every recorded value is the text's hash.
    @Test func aSecureViewHashesWhatIsTypedNotTheWholeTextAtEachEdit() throws {
        let long = String(repeating: "请", count: 100_000)
        let edits = 1_000
        let root = View(identifier: "r")
        let password = TextView(identifier: "p", text: long)
        password.isSecureTextEntry = true
        root.addSubview(password)
        let hasher = try SecretHasher(databasePath: database)
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        recorder.useSecrets(hasher)
        try recorder.attach(to: root)
        for _ in 0..<edits { password.type("a") }
        expectEqual(password.secureBytesHashed, long.utf8.count + edits)
        let typed = password.text
        password.replace(TextRange(location: 0, length: 1), with: "b")
        expectEqual(password.secureBytesHashed, long.utf8.count + edits + password.text.utf8.count)
        let summary = recorder.finish()
        let results = try AuditStore(path: database, access: .read).timeline(of: summary.session)
            .filter { $0.kind == .input && ($0.callback == "typeText" || $0.callback == "replaceText") }
            .map { $0.result ?? "" }
        expectEqual(results.count, edits + 1)
        #expect(results[edits - 1].contains(hasher.hash(typed)))
        #expect(results[edits].contains(hasher.hash(password.text)))
    }

    /// Every file SQLite may keep for the database: itself, its WAL, a rollback journal, the shm.
    func databaseFiles() -> [String: Data] {
        var files: [String: Data] = [:]
        for suffix in ["", "-wal", "-journal", "-shm"] {
            if let data = fileBytes(database + suffix) { files["audit.sqlite\(suffix)"] = data }
        }
        return files
    }

    /// How many times `needle` occurs in the database's files.
    func occurrences(of needle: String) -> Int {
        databaseFiles().values.reduce(0) { $0 + SharedTestSupport.occurrences(of: Array(needle.utf8), in: $1) }
    }

    /// A login form: a plain user name and a secure password, a secure PIN note.
    static func form() -> (root: View, user: TextView, password: TextView, pin: NoteTextView) {
        let root = View(identifier: "login")
        let user = TextView(identifier: "user")
        let password = TextView(identifier: "password")
        password.isSecureTextEntry = true
        let pin = NoteTextView(identifier: "pin", text: "", characterLimit: 40)
        pin.isSecureTextEntry = true
        for view in [user, password, pin] { root.addSubview(view) }
        return (root, user, password, pin)
    }

    /// Types the secret into the form: whole, then key by key, then corrected with a replace.
    static func typeSecret(into form: (root: View, user: TextView, password: TextView, pin: NoteTextView)) {
        form.user.type("ada")
        form.password.type(secret)
        form.password.select(TextRange(location: 0, length: form.password.text.utf16.count))
        for character in secret { form.password.type(String(character)) }
        form.password.replace(TextRange(location: 0, length: 7), with: "CORRECT")
        form.password.endEditing()
        form.pin.type(secret)
        form.pin.endEditing()
    }

    @Test func theSecretIsInNoFileOfTheDatabaseWhileRecordingNorAfter() throws {
        let form = Self.form()
        let delegate = LoggingTextDelegate()
        for view in [form.user, form.password, form.pin] { view.delegate = delegate }
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        recorder.useSecrets(try SecretHasher(databasePath: database))
        try recorder.attach(to: form.root)
        Self.typeSecret(into: form)
        // The delegate was given the text itself: auditing changes nothing it sees.
        #expect(delegate.calls.contains { $0.contains(#"shouldChange {0, 0} "\#(Self.secret)""#) })
        expectEqual(form.password.text, "CORRECT horse battery staple")

        // While recording: the committed batches sit in the WAL.
        let store = try AuditStore(path: database, access: .read)
        try #require(try DirectoryWatch(folder.url.path).wait { try store.session(recorder.session).events > 0 })
        #expect((databaseFiles()["audit.sqlite-wal"]?.count ?? 0) > 0)
        let recordedUser = occurrences(of: "ada")
        #expect(recordedUser > 0, "the plain user name is recorded, so the search finds text")
        for needle in [Self.secret, "CORRECT", "horse", "staple"] {
            expectEqual(occurrences(of: needle), 0, "\(needle)")
        }
        let summary = recorder.finish()
        expectEqual(summary.failedWrites, 0)

        // After: the WAL was checkpointed into the database.
        for needle in [Self.secret, "CORRECT", "horse", "staple"] {
            expectEqual(occurrences(of: needle), 0, "\(needle)")
        }
        let events = try AuditStore(path: database, access: .read).timeline(of: summary.session)
        let secure = events.filter { $0.widget == "login/password" || $0.widget == "login/pin" }
        let typed = secure.filter { $0.callback == "typeText" }
        expectEqual(typed.count, 2 + Self.secret.count)
        #expect(typed.allSatisfy { $0.arguments.hasPrefix(#"{"text":"hmac-sha256:"#) })
        #expect(secure.allSatisfy { ($0.result ?? "").contains(Self.secret) == false })
    }

    @Test func equalSecretsCompareEqualAndOthersDoNot() throws {
        let hasher = try SecretHasher(databasePath: database)
        var hashes: [String] = []
        for secret in [Self.secret, Self.secret, "something else"] {
            let form = Self.form()
            let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
            recorder.useSecrets(hasher)
            try recorder.attach(to: form.root)
            form.password.type(secret)
            let session = recorder.finish().session
            let event = try AuditStore(path: database, access: .read).timeline(of: session)[0]
            hashes.append(event.arguments)
        }
        expectEqual(hashes[0], hashes[1])
        #expect(hashes[0] != hashes[2])
        expectEqual(hashes[0], #"{"text":"\#(hasher.hash(Self.secret))"}"#)
        // Another process opening the same database gets the same key, from its file.
        try expectEqual(SecretHasher(databasePath: database).hash(Self.secret), hasher.hash(Self.secret))
    }

    @Test func theKeyIsThirtyTwoRandomBytesReadableByItsOwnerOnly() throws {
        let a = try SecretHasher(databasePath: database)
        let path = SecretKey.path(forDatabase: database)
        var info = stat()
        expectEqual(stat(path, &info), 0)
        expectEqual(info.st_mode & 0o777, 0o600)
        expectEqual(fileBytes(path)?.count, 32)
        #expect(try SecretHasher(databasePath: folder.path("other.sqlite")).hash("x") != a.hash("x"))
        // A key file that is not a key is refused, not replaced.
        try Data("short".utf8).write(to: URL(fileURLWithPath: folder.path("bad.sqlite-key")))
        #expect {
            try SecretHasher(databasePath: folder.path("bad.sqlite"))
        } throws: { error in
            "\(error)".contains("a secret key is 32 bytes, this file has 5")
        }
    }

    @Test func eightThreadsMakingTheKeyAtOnceAgreeOnOne() throws {
        let path = database
        let hashes = Mutex<Set<String>>([])
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<8 {
            done.enter()
            Thread.detachNewThread {
                gate.wait()
                let hash = (try? SecretHasher(databasePath: path))?.hash("x") ?? "failed"
                hashes.withLock { _ = $0.insert(hash) }
                done.leave()
            }
        }
        for _ in 0..<8 { gate.signal() }
        done.wait()
        expectEqual(hashes.withLock { $0.count }, 1)
        #expect(hashes.withLock { !$0.contains("failed") })
        try expectEqual(FileManager.default.contentsOfDirectory(atPath: folder.url.path), ["audit.sqlite-key"])
    }

    @Test func aPlainTextViewIsRecordedAsIs() throws {
        let form = Self.form()
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: form.root)
        form.user.type(Self.secret)
        let events = try AuditStore(path: database, access: .read).timeline(of: recorder.finish().session)
        expectEqual(events[0].arguments, #"{"text":"\#(Self.secret)"}"#)
        #expect(events.contains { $0.arguments.contains(#""replacementText":"\#(Self.secret)""#) })
    }

    @Test func aRecorderGivenNoKeyStillNeverRecordsTheText() throws {
        let form = Self.form()
        let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
        try recorder.attach(to: form.root)
        form.password.type(Self.secret)
        form.password.type(Self.secret)
        let events = try AuditStore(path: database, access: .read).timeline(of: recorder.finish().session)
        expectEqual(occurrences(of: Self.secret), 0)
        // Within one recording, equal values still compare equal.
        let typed = events.filter { $0.callback == "typeText" }.map(\.arguments)
        #expect(typed.count == 2 && typed[0] == typed[1])
    }

    @Test func recordingsMadeWithTheRecorderDirectlyShareTheDatabasesKey() throws {
        var typed: [String] = []
        for _ in 0..<2 {
            let form = Self.form()
            let recorder = try Recorder(databasePath: database, session: newSession(), catalog: .builtIn)
            try recorder.attach(to: form.root)
            form.password.type(Self.secret)
            let session = recorder.finish().session
            typed.append(try AuditStore(path: database, access: .read).timeline(of: session)[0].arguments)
        }
        expectEqual(typed[0], typed[1])
    }

    @Test func theStoredScenarioHasTheSecureTextHashedAndStillParses() throws {
        let text = """
            { "name": "login", "root": { "kind": "View", "id": "login", "children": [
                { "kind": "TextView", "id": "user", "text": "ada" },
                { "kind": "TextView", "id": "password", "secure": true, "text": "\(Self.secret)" } ] },
              "steps": [
                { "action": "typeText", "widget": "login/user", "text": "lovelace" },
                { "action": "typeText", "widget": "login/password", "text": "\(Self.secret)" },
                { "action": "selectText", "widget": "login/password", "range": { "location": 0, "length": 3 } } ] }
            """
        let scenario = try Scenario(data: Data(text.utf8), catalog: .builtIn)
        expectEqual(scenario.secureTextPaths, ["login/password"])
        let hasher = try SecretHasher(databasePath: database)
        let stored = scenario.recordedSource(hashing: hasher)
        #expect(!stored.contains(Self.secret))
        #expect(stored.contains("lovelace") && stored.contains(#""text":"ada""#))
        expectEqual(stored.components(separatedBy: hasher.hash(Self.secret)).count, 3)
        let reparsed = try Scenario(data: Data(stored.utf8), catalog: .builtIn)
        expectEqual(reparsed.steps.count, 3)
        // A scenario without secure views is stored exactly as written.
        let plain = try Scenario(
            data: Data(text.replacingOccurrences(of: #""secure": true, "#, with: "").utf8), catalog: .builtIn)
        expectEqual(plain.recordedSource(hashing: hasher), plain.source)
    }

    @Test func aSessionThatTypedIntoASecureViewIsNotReplayed() throws {
        let text = """
            { "name": "login", "root": { "kind": "View", "id": "login", "children": [
                { "kind": "TextView", "id": "password", "secure": true } ] },
              "steps": [ { "action": "typeText", "widget": "login/password", "text": "\(Self.secret)" } ] }
            """
        let scenario = try Scenario(data: Data(text.utf8), catalog: .builtIn)
        let summary = try ScenarioRunner.record(
            scenario, delegate: { LoggingTextDelegate() }, named: "logging", databasePath: database)
        #expect {
            try Replayer(databasePath: database, registry: .examples, catalog: .builtIn).replay(
                session: summary.session, candidate: { LoggingTextDelegate() }, named: "logging", mode: .interaction)
        } throws: { error in
            guard case ReplayError.secureText(summary.session, "login/password", 1) = error else { return false }
            return true
        }
        try expectEqual(AuditStore(path: database, access: .read).sessions().count, 1)
    }
}
