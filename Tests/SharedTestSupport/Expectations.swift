import Testing

/// Expects `actual` to equal `expected`, reporting both values when they differ, as
/// `#expect(actual == expected)` does.
///
/// The suites compare values this way rather than with `#expect(a == b)` at each call site: the
/// macro's expansion is type-checked anew at every use, together with the literals it compares,
/// and over thousands of comparisons that is most of what compiling the tests costs. Here it is
/// expanded once, for a single generic type.
public func expectEqual<Value: Equatable>(
    _ actual: Value, _ expected: Value, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(actual == expected, comment, sourceLocation: sourceLocation)
}
