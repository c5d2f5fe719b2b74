// Helpers both test targets use.

import Foundation

/// How many times `needle` occurs in `data`, without overlaps (`memchr` to find its first byte,
/// then `memcmp`: a WAL is tens of megabytes).
public func occurrences(of needle: [UInt8], in data: Data) -> Int {
    guard let first = needle.first, data.count >= needle.count else { return 0 }
    return data.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return 0 }
        var found = 0
        var index = 0
        while index <= raw.count - needle.count,
            let hit = memchr(base + index, Int32(first), raw.count - needle.count - index + 1)
        {
            let at = base.distance(to: UnsafeRawPointer(hit))
            if memcmp(base + at, needle, needle.count) == 0 {
                found += 1
                index = at + needle.count
            } else {
                index = at + 1
            }
        }
        return found
    }
}
