/// SHA-256 (FIPS 180-4), for migration checksums, and HMAC-SHA256 (RFC 2104) for the text of
/// secure widgets. Foundation on Linux has no digest API, and the package takes no dependencies,
/// so this small implementation is the project's own.
package enum SHA256 {
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private static let initialState: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]

    /// The digest of `bytes` as 32 bytes.
    static func digest<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> [UInt8] {
        var stream = Stream()
        stream.update(bytes)
        return stream.finalized()
    }

    /// The digest of `bytes` in lowercase hexadecimal.
    package static func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        hexadecimal(digest(bytes))
    }

    /// HMAC-SHA256 of `message` under `key` (RFC 2104): 32 bytes.
    static func hmac<Message: Sequence<UInt8>>(key: [UInt8], message: Message) -> [UInt8] {
        var hmac = HMAC(key: key)
        hmac.update(message)
        return hmac.finalized()
    }

    /// SHA-256 of a message given a piece at a time. A copy goes on from where it was copied, so
    /// the digest of a text and of that text with more appended costs only what was appended.
    struct Stream: Sendable {
        private var state = SHA256.initialState
        /// The bytes of the block not yet full.
        private var block: [UInt8] = []
        private var byteCount: UInt64 = 0

        package init() { block.reserveCapacity(64) }

        mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
            // Bytes in contiguous memory (an array, a native string's UTF-8) are mixed in a whole
            // block at a time, straight from that memory.
            let done: Void? = bytes.withContiguousStorageIfAvailable { update(contiguous: $0) }
            guard done == nil else { return }
            for byte in bytes {
                block.append(byte)
                if block.count == 64 { compressBlock() }
                byteCount += 1
            }
        }

        private mutating func update(contiguous bytes: UnsafeBufferPointer<UInt8>) {
            byteCount += UInt64(bytes.count)
            var start = 0
            if !block.isEmpty {
                start = min(64 - block.count, bytes.count)
                block.append(contentsOf: bytes[0..<start])
                if block.count == 64 { compressBlock() }
            }
            while bytes.count - start >= 64 {
                SHA256.compress(&state, UnsafeBufferPointer(rebasing: bytes[start..<start + 64]))
                start += 64
            }
            block.append(contentsOf: bytes[start...])
        }

        /// Mixes the full pending block into the state and empties it.
        private mutating func compressBlock() {
            block.withUnsafeBufferPointer { SHA256.compress(&state, $0) }
            block.removeAll(keepingCapacity: true)
        }

        /// The digest of everything given so far (this stream can still be updated).
        func finalized() -> [UInt8] {
            var last = self
            let bitLength = byteCount * 8
            last.update(CollectionOfOne(0x80))
            while last.block.count != 56 { last.update(CollectionOfOne(0)) }
            last.update(stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: bitLength >> UInt64($0)) })
            return last.state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) }
            }
        }
    }

    /// HMAC-SHA256 of a message given a piece at a time, under one key; a key longer than the
    /// 64-byte block is hashed first, as the RFC says.
    package struct HMAC: Sendable {
        /// What a keyed hash stored in place of a secret text starts with: `hmac-sha256:` and the
        /// hexadecimal digest.
        package static let storedPrefix = "hmac-sha256:"

        private var inner = Stream()
        private let outerPad: [UInt8]

        package init(key: [UInt8]) {
            var block = key.count > 64 ? SHA256.digest(key) : key
            block += [UInt8](repeating: 0, count: 64 - block.count)
            inner.update(block.lazy.map { $0 ^ 0x36 })
            outerPad = block.map { $0 ^ 0x5c }
        }

        package mutating func update<Bytes: Sequence<UInt8>>(_ bytes: Bytes) { inner.update(bytes) }

        /// The HMAC of everything given so far, 32 bytes (this one can still be updated).
        package func finalized() -> [UInt8] { SHA256.digest(outerPad + inner.finalized()) }
    }

    /// Mixes one 64-byte block into `state`. The rotations are written out (`x >> n | x << (32 - n)`)
    /// rather than called: the debug build the tests run calls every function it is given, and
    /// a secure text is hashed as it is typed.
    private static func compress(_ state: inout [UInt32], _ block: UnsafeBufferPointer<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            for i in 0..<16 {
                let at = i * 4
                w[i] =
                    UInt32(block[at]) << 24 | UInt32(block[at + 1]) << 16 | UInt32(block[at + 2]) << 8
                    | UInt32(block[at + 3])
            }
            for i in 16..<64 {
                let x = w[i - 15]
                let y = w[i - 2]
                let s0 = (x >> 7 | x << 25) ^ (x >> 18 | x << 14) ^ (x >> 3)
                let s1 = (y >> 17 | y << 15) ^ (y >> 19 | y << 13) ^ (y >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = (
                state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7]
            )
            roundConstants.withUnsafeBufferPointer { k in
                for i in 0..<64 {
                    let s1 = (e >> 6 | e << 26) ^ (e >> 11 | e << 21) ^ (e >> 25 | e << 7)
                    let choice = (e & f) ^ (~e & g)
                    let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i]
                    let s0 = (a >> 2 | a << 30) ^ (a >> 13 | a << 19) ^ (a >> 22 | a << 10)
                    let majority = (a & b) ^ (a & c) ^ (b & c)
                    (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ s0 &+ majority)
                }
            }
            state[0] &+= a
            state[1] &+= b
            state[2] &+= c
            state[3] &+= d
            state[4] &+= e
            state[5] &+= f
            state[6] &+= g
            state[7] &+= h
        }
    }

    /// `bytes` in lowercase hexadecimal. Pointers and arithmetic, not a sequence's iterator and an
    /// array of digits: an unoptimized build (the tests' `auditctl`) calls the generic iterator
    /// once a byte, and a query may print a hundred megabytes of blobs through here.
    package static func hexadecimal(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            bytes.withUnsafeBufferPointer { source in
                guard var input = source.baseAddress, var output = buffer.baseAddress else { return 0 }
                let end = input + source.count
                while input < end {
                    output[0] = digit(input.pointee >> 4)
                    output[1] = digit(input.pointee & 0x0f)
                    input += 1
                    output += 2
                }
                return source.count * 2
            }
        }
    }

    /// The lowercase hex digit of `nibble`: 0x30 is "0", 0x61 is "a".
    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x61 - 10 + nibble
    }
}
