/// How the parser and `--help` see an option: its name, the placeholder of its value (nil for a
/// flag) and its help line. It comes from a typed declaration (`Option`, `Flag`,
/// `RepeatedOption`), never alone.
struct OptionSpec: Equatable, Sendable {
    let name: String
    /// The value's placeholder (`PATH`), or nil for a flag.
    let value: String?
    var help: String
}

/// An option a command lists in its declaration: an `Option`, a `Flag` or a `RepeatedOption`.
///
/// Each is declared once, as a constant (the shared ones in `Options`), which gives the parser and
/// `--help` its name, placeholder and help, and says how its text becomes a value; the command
/// reads what was given through the same constant (`invocation[Options.session]`), so the name is
/// written in one place and a value is converted, and refused, in one way.
protocol CommandOption: Sendable {
    var spec: OptionSpec { get set }

    /// Converts the value given, if any, so that a bad one fails before the command runs; nothing
    /// unless the option is declared so (`Option.checkedUpFront`).
    func checkUpFront(_ parsed: ParsedArguments) throws(UsageError)
}

extension CommandOption {
    var name: String { spec.name }

    func checkUpFront(_ parsed: ParsedArguments) throws(UsageError) {}

    /// The same option with another help line, for a command that gives it a narrower meaning
    /// (`--session`: "the session to show").
    func withHelp(_ help: String) -> Self {
        var option = self
        option.spec.help = help
        return option
    }
}

/// An option that takes a value (`--session N`), and how its text becomes a `Value`: the
/// conversion throws the usage error that says what the option takes. Read as nil when not given,
/// and as the last value when given more than once.
struct Option<Value>: CommandOption {
    var spec: OptionSpec
    /// Whether a value given is converted before the command runs (`Invocation` does it): for a
    /// file written at the end, which must not be refused after the work is done and stored.
    var checkedUpFront = false
    private let convert: @Sendable (_ text: String, _ name: String) throws(UsageError) -> Value

    /// An option whose text `convert` turns into a value; it gets the option's name for its messages.
    init(
        _ name: String, _ placeholder: String, _ help: String,
        convert: @escaping @Sendable (_ text: String, _ name: String) throws(UsageError) -> Value
    ) {
        spec = OptionSpec(name: name, value: placeholder, help: help)
        self.convert = convert
    }

    /// `text` as this option's value, or the usage error that says what it takes.
    func value(of text: String) throws(UsageError) -> Value { try convert(text, spec.name) }

    func checkUpFront(_ parsed: ParsedArguments) throws(UsageError) {
        if checkedUpFront { _ = try parsed[self] }
    }
}

extension Option where Value == String {
    /// An option whose value is its text, as given.
    init(_ name: String, _ placeholder: String, _ help: String) {
        self.init(name, placeholder, help) { text, _ in text }
    }
}

extension Option where Value: FixedWidthInteger & Sendable {
    /// A positive integer (`--session N`), at most `most`: "--session takes a positive integer,
    /// not '0'", "--jobs takes at most 256, not 257".
    static func positiveInteger(_ name: String, _ placeholder: String, _ help: String, atMost most: Value = .max)
        -> Option
    {
        Option(name, placeholder, help) { text, name throws(UsageError) in
            guard let value = Value(text), value > 0 else {
                throw UsageError(message: "\(name) takes a positive integer, not '\(text)'")
            }
            guard value <= most else { throw UsageError(message: "\(name) takes at most \(most), not \(value)") }
            return value
        }
    }

    /// A count from 1 to `most` (`--runs K`): "--runs takes an integer from 1 to 10000, not '0'".
    static func count(_ name: String, _ placeholder: String, _ help: String, most: Value) -> Option {
        Option(name, placeholder, help) { text, name throws(UsageError) in
            guard let value = Value(text), (1...most).contains(value) else {
                throw UsageError(message: "\(name) takes an integer from 1 to \(most), not '\(text)'")
            }
            return value
        }
    }
}

extension Option where Value: Sendable {
    /// One of a few words (`--vetoed yes|no`), each standing for a value; the placeholder lists
    /// them: "--vetoed takes yes or no, not 'maybe'".
    static func choice(_ name: String, _ help: String, _ choices: KeyValuePairs<String, Value>) -> Option {
        let words = choices.map(\.key)
        let listed = words.count < 2 ? words.joined() : "\(words.dropLast().joined(separator: ", ")) or \(words.last!)"
        let values = Array(choices)
        return Option(name, words.joined(separator: "|"), help) { text, name throws(UsageError) in
            guard let choice = values.first(where: { $0.key == text }) else {
                throw UsageError(message: "\(name) takes \(listed), not '\(text)'")
            }
            return choice.value
        }
    }
}

/// An option without a value (`--isolated`), read as whether it was given.
struct Flag: CommandOption {
    var spec: OptionSpec

    init(_ name: String, _ help: String) {
        spec = OptionSpec(name: name, value: nil, help: help)
    }
}

/// An option given any number of times (`--label a=1 --label b=2`), each value converted as an
/// `Option`'s. Read as every value given, in order (none when not given).
struct RepeatedOption<Element>: CommandOption {
    private var each: Option<Element>

    init(
        _ name: String, _ placeholder: String, _ help: String,
        convert: @escaping @Sendable (_ text: String, _ name: String) throws(UsageError) -> Element
    ) {
        each = Option(name, placeholder, help, convert: convert)
    }

    var spec: OptionSpec {
        get { each.spec }
        set { each.spec = newValue }
    }

    /// `text` as one of this option's values, or the usage error that says what it takes.
    func value(of text: String) throws(UsageError) -> Element { try each.value(of: text) }
}

/// What the parser read, as text: every value of each option in order, the flags, and the
/// positional arguments. Commands read options through their declarations (`ReadsOptions`).
struct ParsedArguments: Equatable, Sendable {
    /// Every value of each option given, by name, in the order given.
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
}

/// Reads options through their typed declarations: `parsed[Options.session]`. What the parser
/// read (`ParsedArguments`) and a command's `Invocation` both read so.
protocol ReadsOptions {
    var parsed: ParsedArguments { get }
}

extension ReadsOptions {
    /// The option's value, converted: nil when it was not given, the last when given more than once.
    subscript<Value>(option: Option<Value>) -> Value? {
        get throws(UsageError) {
            guard let text = parsed.values[option.name]?.last else { return nil }
            return try option.value(of: text)
        }
    }

    /// Whether the flag was given.
    subscript(flag: Flag) -> Bool { parsed.flags.contains(flag.name) }

    /// Every value given of the option, converted, in order.
    subscript<Element>(option: RepeatedOption<Element>) -> [Element] {
        get throws(UsageError) {
            var values: [Element] = []
            for text in parsed.values[option.name] ?? [] { values.append(try option.value(of: text)) }
            return values
        }
    }

    /// The value of an option the command cannot run without: "--delegate NAME is required".
    func required<Value>(_ option: Option<Value>) throws(UsageError) -> Value {
        guard let value = try self[option] else {
            throw UsageError(message: "\(option.name) \(option.spec.value ?? "") is required")
        }
        return value
    }

    /// Whether the option was given at all, whatever its value.
    func has(_ option: some CommandOption) -> Bool {
        parsed.values[option.name] != nil || parsed.flags.contains(option.name)
    }
}

extension ParsedArguments: ReadsOptions {
    var parsed: ParsedArguments { self }
}

/// A usage mistake: one line that says what is wrong and where to look.
struct UsageError: Error, Equatable, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Parses `--name value`, `--name=value`, flags, `--` (everything after it is positional) and
/// positionals, against the options a command declares; `-h` is `--help`. A mistake's line points
/// at the command's help under the runner's own name, `programName`.
func parseArguments(
    _ arguments: [String], options: [OptionSpec], positionals allowed: ClosedRange<Int>, command: String,
    programName: String = "auditctl"
) throws(UsageError) -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = 0
    var onlyPositionals = false
    let hint = "see '\(programName) \(command) --help'"
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
            parsed.flags.insert(Options.help.name)
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
            parsed.values[name, default: []].append(inline)
        } else {
            guard index < arguments.count else {
                throw UsageError(message: "option '\(name)' needs a value (\(name) \(spec.value!)); \(hint)")
            }
            parsed.values[name, default: []].append(arguments[index])
            index += 1
        }
    }
    if parsed[Options.help] { return parsed }
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
