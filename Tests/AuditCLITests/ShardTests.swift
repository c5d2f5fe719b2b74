import AuditCore
import Foundation
import SharedTestSupport
import Testing

/// `--shard I/N` on `replay --all` and `report`: n jobs take every session exactly once.
@Suite("Sharding replay --all and report", .tags(.slow))
struct ShardTests {
    /// The recorded sessions `replay --all --shard` replayed.
    static func replayed(_ sandbox: Sandbox, shard: String) throws -> Set<Int> {
        let run = try sandbox.run(
            ["replay", "--all", "--delegate", "checkout.v1", "--isolated", "--shard", shard, "--format", "json"])
        expectEqual(run.status, 0, "\(run)")
        guard case .array(let sessions)? = try decodeJSON(run.stdout)["sessions"] else {
            throw SandboxError(description: run.stdout)
        }
        return Set(sessions.compactMap { if case .int(let id)? = $0["recorded_session"] { id } else { nil } })
    }

    @Test func theShardsOfAnyCountAreDisjointAndCoverEverySession() throws {
        let sandbox = try Sandbox()
        for _ in 0..<9 { try sandbox.recordExample() }
        for count in [1, 2, 3, 4] {
            var seen: [Int] = []
            for index in 1...count {
                let part = try Self.replayed(sandbox, shard: "\(index)/\(count)")
                seen += part
                let report = try sandbox.run(["report", "--shard", "\(index)/\(count)", "--format", "json"])
                expectEqual(report.status, 0, "\(report)")
                guard case .array(let ids)? = try decodeJSON(report.stdout)["sessions"] else {
                    throw SandboxError(description: report.stdout)
                }
                expectEqual(Set(ids.compactMap { if case .int(let id) = $0 { id } else { nil } }), part)
            }
            expectEqual(seen.sorted(), Array(1...9), "\(count) shards")
        }
    }

    @Test(arguments: ["0/4", "5/4", "a/b", "1/0", "1", "1/4/2", "-1/4", ""])
    func aMalformedShardIsRefusedAndNothingIsWritten(_ shard: String) throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        let before = try #require(sandbox.bytes("audit.sqlite"))
        let message = "--shard takes I/N with 1 ≤ I ≤ N (2/4: the second of four parts), not '\(shard)'"
        expectError(try sandbox.run(["replay", "--all", "--delegate", "checkout.v2", "--shard", shard]), message)
        expectError(try sandbox.run(["report", "--shard", shard]), message)
        expectEqual(sandbox.bytes("audit.sqlite"), before)
    }

    @Test func aShardWithoutAllIsRefused() throws {
        let sandbox = try Sandbox()
        try sandbox.recordExample()
        expectError(
            try sandbox.run(["replay", "--session", "1", "--delegate", "checkout.v2", "--shard", "1/2"]),
            "--shard and --label choose among sessions: give them with --all")
    }
}
