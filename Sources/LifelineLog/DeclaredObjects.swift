/// Which object ids a log declared, as a table of flags when the ids are small (the recorder
/// numbers objects from 1), so that checking each event's objects hashes nothing.
struct DeclaredObjects {
    private let flags: [Bool]
    private let ids: Set<TraceObjectID>

    init(_ declared: some Collection<TraceObjectID>) {
        let largest = declared.max()?.rawValue ?? 0
        if largest < UInt64(4 * declared.count + 1_024) {
            var flags = [Bool](repeating: false, count: Int(largest) + 1)
            for id in declared { flags[Int(id.rawValue)] = true }
            self.flags = flags
            ids = []
        } else {
            flags = []
            ids = Set(declared)
        }
    }

    func contains(_ id: TraceObjectID) -> Bool {
        flags.isEmpty ? ids.contains(id) : id.rawValue < UInt64(flags.count) && flags[Int(id.rawValue)]
    }

    /// The first object `kind` names that no line declared.
    func firstUndeclared(in kind: TraceEvent.Kind) -> TraceObjectID? {
        switch kind {
        case .subscribe(let first, let second), .receiveSubscription(let first, let second):
            if !contains(first) { return first }
            return contains(second) ? nil : second
        case .request(let object, _), .cancel(let object), .value(let object, _, _), .completion(let object, _),
             .deallocation(let object, _):
            return contains(object) ? nil : object
        case .mark:
            return nil
        }
    }
}
