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
            "editing": .bool(isEditing), "length": .int(text.utf16.count),
            "selection": ValueCoding.textRange.encode(selectedRange), "textHash": .string(recordedHash(of: text)),
        ])
    }

    /// The digest of `text` as it is recorded: a keyed hash when the view is secure and audited.
    private func recordedHash(of text: String) -> String {
        guard isSecureTextEntry, let link = auditLink else { return TextDigest.hexadecimal(text) }
        return link.secrets.hash(text)
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
/// Reads the bytes eight at a time, little-endian, so it is the same on every machine; each word is
/// mixed in with a multiply and a shift, and the length seeds it.
enum TextDigest {
    static func hexadecimal(_ text: String) -> String {
        let value = digest(text)
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    static func digest(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            var hash = mix(0x9e37_79b9_7f4a_7c15 ^ UInt64(raw.count))
            var offset = 0
            while offset + 8 <= raw.count {
                hash = mix(hash ^ UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                offset += 8
            }
            var tail: UInt64 = 0
            for (shift, byte) in raw[offset...].enumerated() { tail |= UInt64(byte) << (8 * UInt64(shift)) }
            return mix(hash ^ tail ^ 0xff)
        }
    }

    /// One round of SplitMix64's finalizer: every input bit reaches every output bit.
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x = (x ^ (x >> 30)) &* 0xbf58_476d_1ce4_e5b9
        x = (x ^ (x >> 27)) &* 0x94d0_49bb_1331_11eb
        return x ^ (x >> 31)
    }
}
