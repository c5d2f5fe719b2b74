import Foundation
import SharedTestSupport
import Testing

@testable import AuditCore
@testable import AuditInvestigate
@testable import AuditKit
@testable import AuditModel
@testable import AuditReplay
@testable import AuditStorage

@Suite("Value codings: Codable and map")
struct ValueCodingTests {
    struct Address: Codable, Equatable, Sendable {
        var street: String
        var floor: Int?
    }

    struct Order: Codable, Equatable, Sendable {
        var id: Int
        var total: Double
        var express: Bool
        var tags: [String]
        var address: Address
    }

    enum Level: Int, Sendable {
        case low = 1
        case high = 2
    }

    @Test func aCodableStructIsRecordedAsAnObjectAndReadBack() throws {
        let order = Order(
            id: 7, total: 12.5, express: true, tags: ["gift", "fragile"],
            address: Address(street: "Rue \"Haute\"", floor: nil))
        let coding = ValueCoding<Order>.codable
        let recorded = coding.encode(order)
        expectEqual(recorded["id"], .int(7))
        expectEqual(recorded["total"], .double(12.5))
        expectEqual(recorded["tags"], .array([.string("gift"), .string("fragile")]))
        expectEqual(recorded["address"], .object(["street": .string("Rue \"Haute\"")]))
        expectEqual(coding.decode(recorded), order)
        // As the store keeps it: JSON text, parsed again.
        expectEqual(coding.decode(try AuditValue(json: recorded.json)), order)
        #expect(coding.decode(.object(["id": .string("seven")])) == nil)
        #expect(ValueCoding<Order?>.optional(.codable).decode(.null) == .some(nil))
    }

    @Test func aValueThatDoesNotEncodeIsRecordedAsNull() {
        #expect(ValueCoding<Double>.codable.encode(.nan) == .null)
    }

    @Test func mapRecordsAnEnumByItsRawValue() {
        let coding = ValueCoding<Int>.int.map(Level.init(rawValue:), \.rawValue)
        expectEqual(coding.encode(.high), .int(2))
        expectEqual(coding.decode(.int(1)), .low)
        #expect(coding.decode(.int(3)) == nil)
        #expect(coding.decode(.string("1")) == nil)
        for level in [Level.low, .high] { expectEqual(coding.decode(coding.encode(level)), level) }
    }
}
