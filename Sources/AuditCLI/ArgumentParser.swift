/// A command-line option a command accepts.
struct OptionSpec: Sendable {
    let name: String
    /// The value's placeholder (`PATH`), or nil for a flag.
    let value: String?
    let help: String

    static func option(_ name: String, _ value: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: value, help: help)
    }

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, help: help)
    }
}

/// What the parser read: options by name (the last one wins), flags, and positional arguments.
struct ParsedArguments: Equatable, Sendable {
    /// Each option's value (the last, when given more than once).
    var options: [String: String] = [:]
    /// Every value of each option, in order (`--label a=1 --label b=2`).
    var repeated: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
}

/// A usage mistake: one line that says what is wrong and where to look.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Parses `--name value`, `--name=value`, flags, `--` (everything after it is positional) and
/// positionals, against the options a command declares.
func parseArguments(
    _ arguments: [String], options: [OptionSpec], positionals allowed: ClosedRange<Int>, command: String
) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = 0
    var onlyPositionals = false
    let hint = "see 'auditctl \(command) --help'"
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
            parsed.positionals.append(argument)
            continue
        }
        if argument == "--" {
            onlyPositionals = true
            continue
        }
        if argument == "-h" {
            parsed.flags.insert("--help")
            continue
        }
        let (name, inline) = splitInlineValue(argument)
        guard let spec = options.first(where: { $0.name == name }) else {
            throw UsageError(message: "unknown option '\(name)' for '\(command)'; \(hint)")
        }
        if spec.value == nil {
            guard inline == nil else { throw UsageError(message: "option '\(name)' takes no value; \(hint)") }
            parsed.flags.insert(name)
        } else if let inline {
            parsed.options[name] = inline
            parsed.repeated[name, default: []].append(inline)
        } else {
            guard index < arguments.count else {
                throw UsageError(message: "option '\(name)' needs a value (\(name) \(spec.value!)); \(hint)")
            }
            parsed.options[name] = arguments[index]
            parsed.repeated[name, default: []].append(arguments[index])
            index += 1
        }
    }
    if parsed.flags.contains("--help") { return parsed }
    guard allowed.contains(parsed.positionals.count) else {
        let expected =
            allowed.lowerBound == allowed.upperBound
            ? "\(allowed.lowerBound)" : "\(allowed.lowerBound) to \(allowed.upperBound)"
        throw UsageError(
            message:
                "'\(command)' takes \(expected) argument\(allowed.upperBound == 1 ? "" : "s"), got \(parsed.positionals.count); \(hint)"
        )
    }
    return parsed
}

private func splitInlineValue(_ argument: String) -> (String, String?) {
    guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
    return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
}
