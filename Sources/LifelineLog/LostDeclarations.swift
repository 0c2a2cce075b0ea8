/// What a log names without declaring: objects, types, threads and queues whose declaration
/// lines were lost (a recording killed while writing one, a log cut off before it), counted as
/// the reader meets them, and what stands for them in the trace: a placeholder each, and a
/// ``TraceDamage`` that says how much of the log names it.
///
/// A lost declaration costs only what it said (a type, a label, a name); every event that
/// names the object, thread or queue is kept, and so is every object declared with a lost type.
struct LostDeclarations {
    private var objects: [TraceObjectID: (role: TraceObjectRole, events: Int, snapshots: Int)] = [:]
    private var threads: [UInt64: Int] = [:]
    private var queues: [UInt32: Int] = [:]
    /// For each lost type, how many object lines name it.
    private var types: [UInt64: Int] = [:]
    /// The objects declared with a lost type, each in the role the first event that names it
    /// gives it (`object` until then).
    private var rolesOfTypeless: [TraceObjectID: TraceObjectRole] = [:]

    var isEmpty: Bool { objects.isEmpty && threads.isEmpty && queues.isEmpty && types.isEmpty }

    /// Whether some object line named a type that no line declares.
    var hasObjectsOfLostTypes: Bool { !types.isEmpty }

    /// Counts the object `id`, declared with the number of a type no line declares.
    mutating func noteObject(_ id: TraceObjectID, ofLostType type: UInt64) {
        types[type, default: 0] += 1
        rolesOfTypeless[id] = .object
    }

    /// Gives each object of a lost type that `kind` names the role the event gives it, unless
    /// an earlier event gave it one.
    mutating func noteRoles(in kind: TraceEvent.Kind) {
        for (id, role) in Self.roles(in: kind) where rolesOfTypeless[id] == .object {
            rolesOfTypeless[id] = role
        }
    }

    /// What stands for the lost type `type` of the object `id`: an unknown type, in the role the
    /// first event that names the object gives it, its lifetime not known to be tracked (so that
    /// nothing is concluded from a missing deallocation).
    func placeholderType(_ type: UInt64, for id: TraceObjectID) -> TraceObjectType {
        TraceObjectType(
            id: type, typeName: TraceObject.unknownTypeName, shortTypeName: TraceObject.unknownTypeName,
            role: rolesOfTypeless[id] ?? .object, lifetimeTracked: false
        )
    }

    /// Counts an event whose `kind` names objects that `declared` lacks, each in the role the
    /// event gives it.
    mutating func noteEvent(_ kind: TraceEvent.Kind, missingFrom declared: DeclaredObjects) {
        var previous: TraceObjectID?
        for (id, role) in Self.roles(in: kind) where id != previous && !declared.contains(id) {
            previous = id
            var entry = objects[id] ?? (role, 0, 0)
            if entry.role == .object { entry.role = role }
            entry.events += 1
            objects[id] = entry
        }
    }

    /// Counts a snapshot line that lists `id`, which no line declares.
    mutating func noteSnapshot(naming id: TraceObjectID) {
        objects[id, default: (.object, 0, 0)].snapshots += 1
    }

    /// Counts an event that ran on the undeclared thread `tid`.
    mutating func noteThread(_ tid: UInt64) {
        threads[tid, default: 0] += 1
    }

    /// Counts an event that ran on the undeclared queue `id`.
    mutating func noteQueue(_ id: UInt32) {
        queues[id, default: 0] += 1
    }

    /// The damage to report, objects first, then types, threads and queues, each kind by id.
    var damage: [TraceDamage] {
        objects.sorted { $0.key < $1.key }.map { .undeclaredObject($0.key, events: $0.value.events, snapshots: $0.value.snapshots) }
            + types.sorted { $0.key < $1.key }.map { .undeclaredType($0.key, objects: $0.value) }
            + threads.sorted { $0.key < $1.key }.map { .undeclaredThread($0.key, events: $0.value) }
            + queues.sorted { $0.key < $1.key }.map { .undeclaredQueue($0.key, events: $0.value) }
    }

    /// Adds a placeholder for each lost declaration to what the log declared.
    func addPlaceholders(
        to declaredObjects: inout [TraceObjectID: TraceObject], threads declaredThreads: inout [UInt64: TraceThread],
        queues declaredQueues: inout [UInt32: TraceQueue]
    ) {
        for (id, entry) in objects { declaredObjects[id] = .placeholder(id: id, role: entry.role) }
        for tid in threads.keys { declaredThreads[tid] = TraceThread(tid: tid, name: "unknown thread \(tid)") }
        for id in queues.keys { declaredQueues[id] = TraceQueue(id: id, label: "unknown queue \(id)") }
    }

    /// The objects `kind` names, each with the role it plays in the call.
    private static func roles(in kind: TraceEvent.Kind) -> [(TraceObjectID, TraceObjectRole)] {
        switch kind {
        case .subscribe(let publisher, let subscriber):
            return [(publisher, .publisher), (subscriber, .subscriber)]
        case .receiveSubscription(let subscriber, let subscription):
            return [(subscriber, .subscriber), (subscription, .subscription)]
        case .request(let subscription, _), .cancel(let subscription):
            return [(subscription, .subscription)]
        case .value(let subscriber, _, _), .completion(let subscriber, _):
            return [(subscriber, .subscriber)]
        case .deallocation(let object, _):
            return [(object, .object)]
        case .mark:
            return []
        }
    }
}
