import AuditModel
import AuditStorage

extension Scenario {
    /// The paths of the scenario's secure text views (`"secure": true`), whose text is recorded as
    /// a keyed hash.
    public var secureTextPaths: Set<String> {
        var paths: Set<String> = []
        root.build().visit { view in
            if let textView = view as? TextView, textView.isSecureTextEntry { paths.insert(view.path) }
        }
        return paths
    }

    /// The scenario's text as a session stores it: the file as it was, except that the text of a
    /// secure text view — its initial `text`, and the `text` of every step on it — is replaced by
    /// its keyed hash, as in the recorded events. Then the file is stored re-encoded (compact JSON).
    public func recordedSource(hashing secrets: SecretHasher) -> String {
        let secure = secureTextPaths
        guard !secure.isEmpty, let document = try? AuditValue.parse(json: Array(source.utf8)) else { return source }
        var changed = false
        let redacted = Self.redacting(document, secure: secure, secrets, changed: &changed)
        return changed ? redacted.json : source
    }

    /// `document` (a scenario) with the text of the secure text views at `secure` hashed: their
    /// initial `text`, and the `text` of every step on them.
    static func redacting(_ document: AuditValue, secure: Set<String>, _ secrets: SecretHasher) -> AuditValue {
        var changed = false
        return redacting(document, secure: secure, secrets, changed: &changed)
    }

    private static func redacting(
        _ document: AuditValue, secure: Set<String>, _ secrets: SecretHasher, changed: inout Bool
    ) -> AuditValue {
        guard case .object(var document) = document else { return document }
        if let root = document["root"] {
            document["root"] = Self.redact(widget: root, parent: nil, secure: secure, secrets, &changed)
        }
        if case .array(var steps)? = document["steps"] {
            for index in steps.indices {
                guard case .object(var step) = steps[index], case .string(let widget)? = step["widget"],
                    secure.contains(widget), case .string(let text)? = step["text"]
                else { continue }
                step["text"] = .string(secrets.hash(text))
                steps[index] = .object(step)
                changed = true
            }
            document["steps"] = .array(steps)
        }
        return .object(document)
    }

    private static func redact(
        widget: AuditValue, parent: String?, secure: Set<String>, _ secrets: SecretHasher, _ changed: inout Bool
    ) -> AuditValue {
        guard case .object(var fields) = widget, case .string(let id)? = fields["id"] else { return widget }
        let path = parent.map { "\($0)/\(id)" } ?? id
        if secure.contains(path), case .string(let text)? = fields["text"] {
            fields["text"] = .string(secrets.hash(text))
            changed = true
        }
        if case .array(let children)? = fields["children"] {
            fields["children"] = .array(
                children.map { redact(widget: $0, parent: path, secure: secure, secrets, &changed) })
        }
        return .object(fields)
    }
}
