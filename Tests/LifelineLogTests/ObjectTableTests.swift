import LifelineLog
import Testing

@Suite struct ObjectTableTests {
    @Test func smallAndLargeIdsKeepTheirValues() {
        var table = ObjectTable<String>(objectCount: 10)
        let small = TraceObjectID(3), large = TraceObjectID(UInt64.max - 1), unset = TraceObjectID(5)
        table[small] = "small"
        table[large] = "large"
        #expect(table[small] == "small" && table[large] == "large" && table[unset] == nil)
        #expect(table[TraceObjectID(UInt64.max)] == nil)
        table[small] = nil
        table[large] = nil
        #expect(table[small] == nil && table[large] == nil)
    }

    @Test func appendingThroughTheDefaultChangesTheValueInPlace() {
        var table = ObjectTable<[Int]>(objectCount: 2)
        let id = TraceObjectID(1_000), far = TraceObjectID(1 << 40)
        for value in 0..<5 {
            table[id, default: []].append(value)
            table[far, default: []].append(value * 2)
        }
        #expect(table[id] == [0, 1, 2, 3, 4])
        #expect(table[far] == [0, 2, 4, 6, 8])
        let other: ObjectTable<Int> = table.emptyCopy()
        #expect(other[id] == nil)
    }
}
