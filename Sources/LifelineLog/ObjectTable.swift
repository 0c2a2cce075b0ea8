/// A map from object ids to values that indexes an array by the id itself while ids stay
/// small, as the recorder's do (it numbers objects from 1), and hashes only ids far beyond
/// the number of objects (a hand-made log's): the analyses look objects up once or more per
/// event, a million times in a large log.
///
/// ```swift
/// var firstSeen = ObjectTable<UInt64>(objectCount: trace.objects.count)
/// firstSeen[id] = event.seq
/// ```
///
/// It is public and inlinable rather than `package` so that the other modules' uses are
/// specialized for their values: Swift 6.3 does not specialize a `package` generic's
/// inlinable code in another module, and the unspecialized table cost more than hashing.
public struct ObjectTable<Value> {
    // Inlinable, so that each module's use is specialized for its values.
    @usableFromInline var slots: [Value?] = []
    @usableFromInline var others: [TraceObjectID: Value] = [:]
    /// Ids below it get a slot.
    @usableFromInline let slotLimit: UInt64

    /// An empty table for a trace of about `objectCount` objects.
    @inlinable public init(objectCount: Int) {
        slotLimit = UInt64(4 * max(objectCount, 0) + 1_024)
    }

    @inlinable public subscript(id: TraceObjectID) -> Value? {
        get {
            if id.rawValue < UInt64(slots.count) { return slots[Int(id.rawValue)] }
            return id.rawValue < slotLimit || others.isEmpty ? nil : others[id]
        }
        set {
            if id.rawValue < slotLimit {
                guard newValue != nil || id.rawValue < UInt64(slots.count) else { return }
                makeSlot(for: id)
                slots[Int(id.rawValue)] = newValue
            } else {
                others[id] = newValue
            }
        }
    }

    /// The value of `id`, or `value` when it has none; changed in place (appending to an array
    /// value copies nothing).
    @inlinable public subscript(id: TraceObjectID, default value: @autoclosure () -> Value) -> Value {
        get { self[id] ?? value() }
        _modify {
            if id.rawValue < slotLimit {
                makeSlot(for: id)
                let index = Int(id.rawValue)
                var current = slots[index] ?? value()
                slots[index] = nil
                defer { slots[index] = current }
                yield &current
            } else {
                yield &others[id, default: value()]
            }
        }
    }

    /// An empty table of other values for the same objects.
    @inlinable public func emptyCopy<Other>() -> ObjectTable<Other> {
        ObjectTable<Other>(slotLimit: slotLimit)
    }

    @usableFromInline init(slotLimit: UInt64) {
        self.slotLimit = slotLimit
    }

    @inlinable mutating func makeSlot(for id: TraceObjectID) {
        guard id.rawValue >= UInt64(slots.count) else { return }
        let count = min(max(id.rawValue + 1, UInt64(2 * slots.count)), slotLimit)
        slots += repeatElement(nil, count: Int(count) - slots.count)
    }
}

extension ObjectTable: Sendable where Value: Sendable {}
