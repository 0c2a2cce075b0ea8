/// A hash table keyed by addresses, for the look-ups a walk makes for nearly every word it
/// reads (objects validated, queued, metadata checked).
///
/// `Dictionary` and `Set` hash with seeded SipHash, which defends against keys an attacker
/// picks to collide; these keys are addresses in our own process, which nobody outside it
/// chooses, so a multiplicative (Fibonacci) hash does, at a fraction of the cost: SipHash was
/// 13 % of a warm walk's instructions. Open addressing with linear probing, at most half full.
///
/// It cannot be iterated: its order depends on the hash, and nothing a walk produces may.
struct AddressTable<Value> {
    /// The key in each slot; `0` marks an empty slot, so the key `0` lives in `zeroValue`.
    private var keys: [UInt]
    private var values: [Value?]
    private var zeroValue: Value?
    /// The number of keys held.
    private(set) var count = 0
    /// `64 - log2(keys.count)`: the top bits of the product index the slot.
    private var shift: UInt

    init(minimumCapacity: Int = 0) {
        var slots = 16
        while slots < minimumCapacity * 2 { slots *= 2 }
        keys = [UInt](repeating: 0, count: slots)
        values = [Value?](repeating: nil, count: slots)
        shift = UInt(UInt.bitWidth - slots.trailingZeroBitCount)
    }

    var isEmpty: Bool { count == 0 }

    private func slot(of key: UInt) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding `key`, or the empty slot where it would go.
    private func find(_ key: UInt) -> (index: Int, found: Bool) {
        let mask = keys.count - 1
        var index = slot(of: key)
        while true {
            let held = keys[index]
            if held == key { return (index, true) }
            if held == 0 { return (index, false) }
            index = (index + 1) & mask
        }
    }

    subscript(key: UInt) -> Value? {
        get {
            if key == 0 { return zeroValue }
            let (index, found) = find(key)
            return found ? values[index] : nil
        }
        set {
            guard let newValue else { remove(key); return }
            if key == 0 {
                if zeroValue == nil { count += 1 }
                zeroValue = newValue
                return
            }
            var (index, found) = find(key)
            if !found {
                if (count + 1) * 2 > keys.count {
                    grow()
                    index = find(key).index
                }
                keys[index] = key
                count += 1
            }
            values[index] = newValue
        }
    }

    /// Makes room for `capacity` keys without growing.
    mutating func reserveCapacity(_ capacity: Int) {
        guard capacity * 2 > keys.count else { return }
        rehash(into: AddressTable(minimumCapacity: capacity))
    }

    mutating func removeAll() {
        guard count > 0 else { return }
        for index in keys.indices where keys[index] != 0 {
            keys[index] = 0
            values[index] = nil
        }
        zeroValue = nil
        count = 0
    }

    /// Removes `key`, shifting back the keys after it that probed past its slot, so that
    /// every key stays reachable from its own slot.
    mutating func remove(_ key: UInt) {
        if key == 0 {
            if zeroValue != nil { count -= 1 }
            zeroValue = nil
            return
        }
        var (hole, found) = find(key)
        guard found else { return }
        let mask = keys.count - 1
        var next = (hole + 1) & mask
        while keys[next] != 0 {
            let home = slot(of: keys[next])
            // The key at `next` may move into the hole unless its home lies in (hole, next].
            let homeIsBetween = hole < next ? (home > hole && home <= next) : (home > hole || home <= next)
            if !homeIsBetween {
                keys[hole] = keys[next]
                values[hole] = values[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        keys[hole] = 0
        values[hole] = nil
        count -= 1
    }

    private mutating func grow() {
        rehash(into: AddressTable(minimumCapacity: keys.count))
    }

    private mutating func rehash(into table: AddressTable) {
        var table = table
        for index in keys.indices where keys[index] != 0 {
            table[keys[index]] = values[index]
        }
        table.zeroValue = zeroValue
        table.count = count
        self = table
    }
}

extension AddressTable where Value == Void {
    func contains(_ key: UInt) -> Bool { self[key] != nil }

    /// Adds `key`; `false` when it was already there.
    @discardableResult
    mutating func insert(_ key: UInt) -> Bool {
        if key == 0 {
            guard zeroValue == nil else { return false }
            zeroValue = ()
            count += 1
            return true
        }
        // One probe finds the key or the slot it goes in, unless the table must grow first.
        var (index, found) = find(key)
        guard !found else { return false }
        if (count + 1) * 2 > keys.count {
            grow()
            index = find(key).index
        }
        keys[index] = key
        values[index] = ()
        count += 1
        return true
    }
}

extension AddressTable: Sendable where Value: Sendable {}
