/// Text written to an `Output` in chunks of about 64 KB as it is appended: how `show` and `diff`
/// stream their JSON, and `show` its text, so the memory they use does not grow with the events
/// they write.
struct ChunkedWriter {
    private let output: Output
    private var chunk = ""

    init(_ output: Output) {
        self.output = output
    }

    mutating func append(_ text: String) {
        chunk += text
        if chunk.utf8.count >= 65_536 { flush() }
    }

    /// Writes what is left; call it once, after the last append.
    mutating func flush() {
        if !chunk.isEmpty { output.write(chunk) }
        chunk = ""
    }
}
