/// A 64-bit digest of a text's UTF-8, in 16 hexadecimal digits: tells two texts apart in a recorded
/// state (not a defence against someone crafting a collision; secure text gets `SecretHasher`).
///
/// Reads the bytes eight at a time, little-endian, so it is the same on every machine, and mixes
/// each word in with SplitMix64's finalizer; the byte count is mixed in last. It can be extended:
/// the digest of a text and then of more bytes appended to it is the digest of the whole, so a
/// text view typed into at its end digests only what was typed. Stored sessions compare these
/// values, so the function never changes.
package struct TextDigest: Sendable {
    private var hash: UInt64 = 0x9e37_79b9_7f4a_7c15
    /// The bytes not yet mixed in (fewer than eight), little-endian.
    private var pending: UInt64 = 0
    private var pendingCount = 0
    private var byteCount = 0

    package init() {}

    package init(_ text: String) {
        append(text)
    }

    package mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        byteCount += bytes.count
        var offset = 0
        while pendingCount > 0, offset < bytes.count {
            add(bytes[offset])
            offset += 1
        }
        while offset + 8 <= bytes.count {
            hash = Self.mix(hash ^ UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        while offset < bytes.count {
            add(bytes[offset])
            offset += 1
        }
    }

    private mutating func add(_ byte: UInt8) {
        pending |= UInt64(byte) << (8 * UInt64(pendingCount))
        pendingCount += 1
        if pendingCount == 8 {
            hash = Self.mix(hash ^ pending)
            (pending, pendingCount) = (0, 0)
        }
    }

    var value: UInt64 { Self.mix(Self.mix(hash ^ pending) ^ UInt64(byteCount)) }

    package var hexadecimal: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    package static func hexadecimal(_ text: String) -> String { TextDigest(text).hexadecimal }

    /// SplitMix64's finalizer: every input bit reaches every output bit.
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x = (x ^ (x >> 30)) &* 0xbf58_476d_1ce4_e5b9
        x = (x ^ (x >> 27)) &* 0x94d0_49bb_1331_11eb
        return x ^ (x >> 31)
    }
}
