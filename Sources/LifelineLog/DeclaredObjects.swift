/// The objects a log declared, each with the line that declared it, found by id through a
/// table indexed by the id itself while the ids stay small (the recorder numbers objects from
/// 1), so that neither declaring an object nor checking each event's objects hashes anything.
struct DeclaredObjects {
    /// Every declaration, in the order of the log, with the number of the `type` line that
    /// says its object's type, role and lifetime tracking (0 for a line that wrote them out:
    /// the object holds them).
    private(set) var declarations: [(object: TraceObject, line: Int, type: UInt64)] = []
    /// For each small id, its declaration's index plus one; 0 for none.
    private var positions: [Int32] = []
    /// The declarations of ids too large for `positions`.
    private var largePositions: [TraceObjectID: Int] = [:]

    var count: Int { declarations.count }

    /// The declaration of `id`, if a line declared it.
    func declaration(of id: TraceObjectID) -> (object: TraceObject, line: Int, type: UInt64)? {
        position(of: id).map { declarations[$0] }
    }

    func contains(_ id: TraceObjectID) -> Bool {
        position(of: id) != nil
    }

    /// Adds the declaration of an id not declared yet: `object`, whose type, role and lifetime
    /// tracking the `type` line numbered `type` says, unless `type` is 0.
    mutating func add(_ object: TraceObject, line: Int, type: UInt64) {
        let position = declarations.count
        declarations.append((object, line, type))
        // Ids up to a few times the number of objects (and a million) get a slot; a log that
        // numbers its objects sparsely falls back to hashing.
        let id = object.id.rawValue
        if id < UInt64(positions.count) {
            positions[Int(id)] = Int32(position + 1)
        } else if id < UInt64(4 * declarations.count + (1 << 20)) && declarations.count < Int(Int32.max) {
            positions += repeatElement(0, count: max(Int(id) + 1 - positions.count, positions.count))
            positions[Int(id)] = Int32(position + 1)
        } else {
            largePositions[object.id] = position
        }
    }

    private func position(of id: TraceObjectID) -> Int? {
        if id.rawValue < UInt64(positions.count) {
            let stored = positions[Int(id.rawValue)]
            if stored > 0 { return Int(stored) - 1 }
        }
        return largePositions.isEmpty ? nil : largePositions[id]
    }

    /// Whether `kind` names an object that no line declared.
    func namesUndeclared(_ kind: TraceEvent.Kind) -> Bool {
        var undeclared = false
        kind.forEachObject { object in
            if !undeclared && !contains(object) { undeclared = true }
        }
        return undeclared
    }
}
