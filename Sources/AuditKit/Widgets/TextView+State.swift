import AuditModel
import AuditStorage

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
}
