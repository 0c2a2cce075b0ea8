import Testing
@testable import LifelineHeap

/// The walk's address table answers as a `Dictionary` would, through growth, removals that
/// shift probed keys back, colliding keys and the key 0.
@Suite struct AddressTableTests {
    @Test func answersAsADictionaryThroughInsertionsAndRemovals() {
        var table = AddressTable<Int>()
        var reference: [UInt: Int] = [:]
        // A fixed pseudo-random sequence over few distinct, 16-byte-aligned keys (and 0), so
        // keys are inserted, overwritten and removed many times, and probe runs wrap around.
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for step in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let key = UInt(state >> 54) << 4
            if state & 3 == 0 {
                table.remove(key)
                reference[key] = nil
            } else {
                table[key] = step
                reference[key] = step
            }
            #expect(table[key] == reference[key])
            #expect(table.count == reference.count)
        }
        for key in stride(from: UInt(0), through: UInt(1024) << 4, by: 16) {
            #expect(table[key] == reference[key], "key \(key)")
        }
        table.removeAll()
        #expect(table.isEmpty)
        #expect(table[0] == nil && table[16] == nil)
    }

    @Test func setOperationsSayWhetherTheAddressWasNew() {
        var set = AddressTable<Void>(minimumCapacity: 2)
        var answers = [set.insert(0), set.insert(0)]
        for address in stride(from: UInt(0x7F00_0000_0000), to: 0x7F00_0000_1000, by: 16) {
            answers.append(set.insert(address))
        }
        answers.append(set.insert(0x7F00_0000_0010))
        #expect(answers == [true, false] + Array(repeating: true, count: 256) + [false])
        #expect(set.contains(0x7F00_0000_0ff0))
        #expect(!set.contains(0x7F00_0000_1000))
        #expect(set.count == 257)
    }
}
