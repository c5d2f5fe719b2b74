import AuditModel

/// Values by small integer ids, such as the row ids of names and widgets: an array lookup where a
/// dictionary would hash every id, with a dictionary for ids too large (or negative) to index.
package struct IDTable<Value> {
    private static var denseLimit: Int64 { 65_536 }
    private var dense: [Value?] = []
    private var sparse: [Int64: Value] = [:]

    package init() {}

    package subscript(id: Int64) -> Value? {
        get { id >= 0 && id < Int64(dense.count) ? dense[Int(id)] : sparse[id] }
        set {
            guard id >= 0, id < Self.denseLimit else {
                sparse[id] = newValue
                return
            }
            if Int64(dense.count) <= id { dense += repeatElement(nil, count: Int(id) + 1 - dense.count) }
            dense[Int(id)] = newValue
        }
    }

    package subscript(id: Int64, default value: @autoclosure () -> Value) -> Value {
        get { self[id] ?? value() }
        set { self[id] = newValue }
    }
}
