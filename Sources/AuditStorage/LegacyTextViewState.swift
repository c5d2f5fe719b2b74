import AuditModel

/// A text view's state as earlier builds recorded it (`{"editing": B, "selection": {…}, "text":
/// "…"}`, the whole text), read in today's shape (`editing`, `selection`, `length`, `textHash`), so
/// that an old session replays and diffs as identical to a new run that left the same state. The
/// old shape is frozen: this reads it without the widget kit.
enum LegacyTextViewState {
    /// The state in today's shape, given the stored bytes; nil for any other JSON.
    ///
    /// A secure view's old state holds the text's keyed hash (`hmac-sha256:…`), which becomes the
    /// `textHash`; its length is taken as 0, which is right for every session `replay` accepts (it
    /// refuses those where a secure view ever held text).
    static func upgrading(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard mayBeLegacy(bytes), let value = try? AuditValue(json: String(decoding: bytes, as: UTF8.self)),
            case .object(let fields) = value, fields.count == 3,
            case .bool? = fields["editing"], case .object(let selection)? = fields["selection"], selection.count == 2,
            case .int(let location)? = selection["location"], case .int(let length)? = selection["length"],
            location >= 0, length >= 0, case .string(let text)? = fields["text"]
        else { return nil }
        let secure = text.hasPrefix(SHA256.HMAC.storedPrefix)
        var upgraded = fields
        upgraded["text"] = nil
        upgraded["length"] = .int(secure ? 0 : text.utf16.count)
        upgraded["textHash"] = .string(secure ? text : TextDigest.hexadecimal(text))
        return AuditValue.object(upgraded).json
    }

    /// Whether `bytes` (a stored result) may be an old state: a test of the first bytes, so that
    /// only those are parsed. Results are stored with their keys sorted.
    static func mayBeLegacy(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.starts(with: #"{"editing":true,"selection":"#.utf8)
            || bytes.starts(with: #"{"editing":false,"selection":"#.utf8)
    }
}
