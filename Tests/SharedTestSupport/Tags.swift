import Testing

extension Tag {
    /// Suites that run the tool as processes many times, kill recordings, fill disks, or measure
    /// memory and time at scale: the fast loop (`scripts/test-fast.sh`) leaves them out, the
    /// README's `swift test` and CI run them.
    @Tag public static var slow: Self
}
