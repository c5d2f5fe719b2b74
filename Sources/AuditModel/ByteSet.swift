#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A set of bytes, for the question every text output asks of each value it writes: is the
/// string's UTF-8 made of these bytes alone (so JSON needs no escape, so a terminal shows it as
/// itself)? C's `strspn` answers it, scanning many bytes at a time where a loop takes one; the
/// largest outputs (a query's megabyte blobs as hex) are almost all such scanning.
///
/// The NUL byte is never a member: a string that holds one is never made of members alone.
package struct ByteSet: Sendable {
    /// The members, NUL-terminated, as `strspn` takes them.
    private let members: [CChar]

    /// The bytes from 1 to 255 for which `isMember` holds.
    package init(_ isMember: (UInt8) -> Bool) {
        members = (1...255).map { UInt8($0) }.filter(isMember).map { CChar(bitPattern: $0) } + [0]
    }

    /// Whether every byte of `text`'s UTF-8 is a member (true for the empty string).
    package func containsEveryByte(of text: String) -> Bool {
        let span = members.withUnsafeBufferPointer { set in
            // A native string's storage is NUL-terminated: `withCString` reads it in place.
            text.withCString { strspn($0, set.baseAddress!) }
        }
        return span == text.utf8.count
    }
}
