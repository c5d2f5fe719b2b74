import Foundation
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
        #expect(recorded["id"] == .int(7))
        #expect(recorded["total"] == .double(12.5))
        #expect(recorded["tags"] == .array([.string("gift"), .string("fragile")]))
        #expect(recorded["address"] == .object(["street": .string("Rue \"Haute\"")]))
        #expect(coding.decode(recorded) == order)
        // As the store keeps it: JSON text, parsed again.
        #expect(coding.decode(try AuditValue(json: recorded.json)) == order)
        #expect(coding.decode(.object(["id": .string("seven")])) == nil)
        #expect(ValueCoding<Order?>.optional(.codable).decode(.null) == .some(nil))
    }

    @Test func aValueThatDoesNotEncodeIsRecordedAsNull() {
        #expect(ValueCoding<Double>.codable.encode(.nan) == .null)
    }

    @Test func mapRecordsAnEnumByItsRawValue() {
        let coding = ValueCoding<Int>.int.map(Level.init(rawValue:), \.rawValue)
        #expect(coding.encode(.high) == .int(2))
        #expect(coding.decode(.int(1)) == .low)
        #expect(coding.decode(.int(3)) == nil)
        #expect(coding.decode(.string("1")) == nil)
        for level in [Level.low, .high] { #expect(coding.decode(coding.encode(level)) == level) }
    }
}
