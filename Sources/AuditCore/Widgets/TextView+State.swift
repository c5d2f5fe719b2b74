/// The state a text view's input leaves, as recorded: its size, not its text.
///
/// An input's result is `{"editing": B, "length": N, "selection": {…}, "textHash": H}`: the text's
/// length in UTF-16 units, the selection, whether the view is editing, and a 64-bit digest of the
/// text (`TextDigest`; for a secure view the keyed hash of `SecretHasher` instead). The text itself
/// is not recorded: it follows from the initial text and the recorded edits, whose arguments carry
/// what each one typed. So what one input stores is constant, and a session's size grows with
/// what was typed, not with the square of the number of edits. Computing the digest reads the
/// text once per input (O(n) time, no memory beyond the text).
extension TextView {
    /// The state an input leaves, recorded as its result.
    var state: AuditValue {
        .object([
            "editing": .bool(isEditing), "length": .int(utf16Length),
            "selection": ValueCoding.textRange.encode(selectedRange), "textHash": .string(recordedHash()),
        ])
    }

    /// `state` when the view is audited; nil otherwise (a dry run), which records nothing and so
    /// need not digest the text.
    var recordedState: AuditValue? { auditLink == nil ? nil : state }

    /// The digest of the text as it is recorded: a keyed hash when the view is secure and audited.
    private func recordedHash() -> String {
        guard isSecureTextEntry, let link = auditLink else { return digest.hexadecimal }
        return secureHash(by: link.secrets)
    }

    /// A state recorded by earlier builds (`{"editing": B, "selection": {…}, "text": "…"}`, the
    /// whole text), given as the stored bytes, in today's shape, so that an old session replays and diffs as identical to a
    /// new run that left the same state; nil for any other JSON.
    ///
    /// A secure view's old state holds the text's keyed hash, which becomes the `textHash`; its
    /// length is taken as 0, which is right for every session `replay` accepts (it refuses those
    /// where a secure view ever held text).
    static func upgradingLegacyState(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard mayBeLegacyState(bytes), let value = try? AuditValue(json: String(decoding: bytes, as: UTF8.self)),
            case .object(let fields) = value, fields.count == 3,
            case .bool? = fields["editing"], let selection = fields["selection"],
            ValueCoding.textRange.decode(selection) != nil, case .string(let text)? = fields["text"]
        else { return nil }
        let secure = text.hasPrefix(SecretHasher.prefix)
        var upgraded = fields
        upgraded["text"] = nil
        upgraded["length"] = .int(secure ? 0 : text.utf16.count)
        upgraded["textHash"] = .string(secure ? text : TextDigest.hexadecimal(text))
        return AuditValue.object(upgraded).json
    }

    /// Whether `bytes` (a stored result) may be an old state: a test of the first bytes, so that
    /// only those are parsed. Results are stored with their keys sorted.
    static func mayBeLegacyState(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.starts(with: #"{"editing":true,"selection":"#.utf8)
            || bytes.starts(with: #"{"editing":false,"selection":"#.utf8)
    }
}

/// A 64-bit digest of a text's UTF-8, in 16 hexadecimal digits: tells two texts apart in a recorded
/// state (not a defence against someone crafting a collision; secure text gets `SecretHasher`).
///
/// Reads the bytes eight at a time, little-endian, so it is the same on every machine, and mixes
/// each word in with SplitMix64's finalizer; the byte count is mixed in last. It can be extended:
/// the digest of a text and then of more bytes appended to it is the digest of the whole, so a
/// text view typed into at its end digests only what was typed. Stored sessions compare these
/// values, so the function never changes.
struct TextDigest: Sendable {
    private var hash: UInt64 = 0x9e37_79b9_7f4a_7c15
    /// The bytes not yet mixed in (fewer than eight), little-endian.
    private var pending: UInt64 = 0
    private var pendingCount = 0
    private var byteCount = 0

    init() {}

    init(_ text: String) {
        append(text)
    }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        byteCount += bytes.count
        var offset = 0
        while pendingCount > 0, offset < bytes.count {
            add(bytes[offset])
            offset += 1
        }
        while offset + 8 <= bytes.count {
            hash = Self.mix(hash ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        while offset < bytes.count {
            add(bytes[offset])
            offset += 1
        }
    }

    private mutating func add(_ byte: UInt8) {
        pending |= UInt64(byte) << (8 * UInt64(pendingCount))
        pendingCount += 1
        if pendingCount == 8 {
            hash = Self.mix(hash ^ pending)
            (pending, pendingCount) = (0, 0)
        }
    }

    var value: UInt64 { Self.mix(Self.mix(hash ^ pending) ^ UInt64(byteCount)) }

    var hexadecimal: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    static func hexadecimal(_ text: String) -> String { TextDigest(text).hexadecimal }

    /// SplitMix64's finalizer: every input bit reaches every output bit.
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x = (x ^ (x >> 30)) &* 0xbf58_476d_1ce4_e5b9
        x = (x ^ (x >> 27)) &* 0x94d0_49bb_1331_11eb
        return x ^ (x >> 31)
    }
}
