import LifelineLog

/// The pipelines of a trace: its hops grouped by the top-level subscribe that made them.
///
/// How hops are attributed:
/// - Hops linked through the handshake (an operator's stage that is one hop's subscriber and
///   the next one's subscription, a subscription handed down a chain, a subscribe made
///   inside another hop's subscribe call) always belong together.
/// - A group of linked hops whose first call was made from the program's own code (outside
///   any recorded call) starts a pipeline.
/// - A group first subscribed inside a value or completion delivered to a pipeline's end (a
///   `sink`'s closure, a hand-written subscriber: a subscriber that is no other hop's
///   subscription) was subscribed by the program's own code, and starts a pipeline of its own,
///   whether or not it received anything and whatever its closures send into subjects that
///   other pipelines read: nothing in the handshake passes its values on. The end itself,
///   subscribed again from its own delivery, stays in its pipeline.
/// - A group first subscribed inside another call of a pipeline joins that pipeline: the inner
///   publishers `flatMap`, `switchToLatest` and `catch` subscribe while a value or completion
///   reaches their stage, which passes values on downstream, and a `share()` or `multicast`
///   connects its upstream inside the subscribe of its first subscriber. So a shared upstream
///   belongs to the pipeline that connected it, and later subscribers of the share list that
///   pipeline in ``Pipeline/sharesUpstreamWith``.
/// - The exception is a group made inside an operator's delivery that ends there: a subscriber
///   that received values and passed none of them on to the pipeline it was made in starts a
///   pipeline of its own. One that received nothing cannot be told apart from an inner
///   publisher that never delivered, and joins the pipeline it was made in.
///
/// Pipelines are numbered in the order of their first event. Pipelines that the same line
/// made (a function that subscribes, called twice) get its place and their position among
/// them as their name: `Rows.swift:63 (2nd of 2)`.
///
/// ```swift
/// let pipelines = TracePipelines(TraceLifecycles(trace))
/// for pipeline in pipelines.pipelines { print(pipeline.id, pipeline.name, pipeline.state) }
/// ```
public struct TracePipelines: Sendable {
    /// Every pipeline, `P1` first.
    public let pipelines: [Pipeline]
    private let pipelineOfLifecycle: [Int]

    /// Groups the hops of `lifecycles` into pipelines.
    public init(_ lifecycles: TraceLifecycles) {
        // Lifecycles are read field by field by index, never copied whole: a copy retains its
        // nine arrays, and a retry has a hundred thousand lifecycles.
        let all = lifecycles.lifecycles
        var components = UnionFind(count: all.count)
        for index in all.indices {
            for upstream in all[index].upstream { components.union(all[index].id.rawValue, upstream.rawValue) }
        }

        // The groups each group passes values on to: its deliveries enclose a delivery to
        // their hops.
        var forwards: [Int: Set<Int>] = [:]
        for event in lifecycles.trace.events where event.phase == .begin {
            guard event.kind.isDelivery, let receiver = lifecycles.lifecycleID(ofEvent: event.seq),
                  let parent = lifecycles.calls.call(at: event.seq)?.parent,
                  lifecycles.event(parent)?.kind.isDelivery == true,
                  let sender = lifecycles.lifecycleID(ofEvent: parent) else { continue }
            let from = components.root(sender.rawValue), to = components.root(receiver.rawValue)
            if from != to { forwards[from, default: []].insert(to) }
        }

        // Each group, in the order its first hop began, starts a pipeline or joins one.
        var pipelineOfComponent: [Int: Int] = [:]
        var members: [[Int]] = []
        var ends: [Lifecycle.ID] = []
        for index in all.indices {
            let id = all[index].id
            let component = components.root(id.rawValue)
            if let pipeline = pipelineOfComponent[component] {
                members[pipeline].append(id.rawValue)
                continue
            }
            var joined: Int?
            if let start = all[index].events.first {
                for call in lifecycles.calls.enclosingCalls(of: start) {
                    guard let outer = lifecycles.lifecycleID(ofEvent: call.begin),
                          let pipeline = pipelineOfComponent[components.root(outer.rawValue)] else { continue }
                    // A subscribe made by the program's code in a pipeline's end (a sink's
                    // closure) makes a pipeline of its own, whatever that pipeline later sends
                    // into it or it into that pipeline: only an operator's stage passes on what
                    // it subscribes. A subscriber subscribed again from its own delivery (a
                    // hand-written retry) is still that pipeline's end.
                    if Self.isDeliveryToAnEnd(call, of: outer, in: lifecycles),
                       all[outer.rawValue].subscriber != all[index].subscriber { break }
                    // Values passed on into the pipeline it was made in make a group that
                    // pipeline's inner publisher; values a closure sends into a subject that
                    // feeds an earlier pipeline do not.
                    let forwarding = forwards[component, default: []].contains { target in
                        pipelineOfComponent[target].map { $0 == pipeline } ?? true
                    }
                    if !Self.endsThere(all[index], forwarding: forwarding) { joined = pipeline }
                    break
                }
            }
            if let joined {
                pipelineOfComponent[component] = joined
                members[joined].append(id.rawValue)
            } else {
                pipelineOfComponent[component] = members.count
                members.append([id.rawValue])
                ends.append(id)
            }
        }

        var pipelineOfLifecycle = Array(repeating: 0, count: all.count)
        for (pipeline, hops) in members.enumerated() {
            for hop in hops { pipelineOfLifecycle[hop] = pipeline }
        }

        // Number by first event: a pipeline joined by an early inner hop keeps its own start.
        let firstEvents = members.map { hops in hops.compactMap { all[$0].events.first }.min() ?? .max }
        let order = members.indices.sorted { (firstEvents[$0], $0) < (firstEvents[$1], $1) }
        var number = Array(repeating: 0, count: members.count)
        for (position, index) in order.enumerated() { number[index] = position + 1 }

        let trace = lifecycles.trace
        // What each pipeline still open at the end of an unfinished log waits on, by its end's hop.
        var waitOfEnd: [Int: String] = [:]
        for wait in PipelineWait.all(in: lifecycles) { waitOfEnd[wait.end.rawValue] = wait.summary }
        var pipelines: [Pipeline] = []
        var ownersOfObject: [TraceObjectID: [Pipeline.ID]] = [:]
        for index in order {
            let hops = members[index]
            let id = Pipeline.ID(number[index])
            var objects = Set<TraceObjectID>()
            // Sorted once and repeats dropped: a request shared by several hops is in each.
            var events: [UInt64] = []
            for hop in hops {
                objects.insert(all[hop].subscriber)
                if let publisher = all[hop].publisher { objects.insert(publisher) }
                if let subscription = all[hop].subscription { objects.insert(subscription) }
                events += all[hop].events
            }
            events.sort()
            var kept = 0
            for index in events.indices where index == 0 || events[index] != events[kept - 1] {
                events[kept] = events[index]
                kept += 1
            }
            events.removeSubrange(kept...)
            let sortedObjects = objects.sorted()
            // A pipeline shares upstream with an earlier one when both subscribed to the same
            // publisher object (a subject, a share); value types such as `Just` or
            // `Subscriptions.empty` have no identity to share.
            var sharers = Set<Pipeline.ID>()
            var publishers = Set<TraceObjectID>()
            for hop in hops {
                if let publisher = all[hop].publisher, trace.objects[publisher]?.lifetimeTracked == true { publishers.insert(publisher) }
            }
            for object in publishers.sorted() {
                sharers.formUnion(ownersOfObject[object, default: []])
                ownersOfObject[object, default: []].append(id)
            }
            pipelines.append(Self.pipeline(
                id: id, end: all[ends[index].rawValue], hops: hops, in: all, objects: sortedObjects, events: events,
                sharesUpstreamWith: sharers.sorted(), waits: waitOfEnd.isEmpty ? [] : hops.compactMap { waitOfEnd[$0] },
                lifecycles: lifecycles
            ))
        }
        // Pipelines made by the same line (or labelled alike) are numbered among themselves.
        var namesakes: [String: [Int]] = [:]
        for index in pipelines.indices { namesakes[pipelines[index].name, default: []].append(index) }
        for indices in namesakes.values where indices.count > 1 {
            for (position, index) in indices.enumerated() {
                pipelines[index] = pipelines[index].repeated(Pipeline.Repetition(position: position + 1, count: indices.count))
            }
        }
        for index in pipelineOfLifecycle.indices { pipelineOfLifecycle[index] = number[pipelineOfLifecycle[index]] - 1 }
        self.pipelineOfLifecycle = pipelineOfLifecycle
        self.pipelines = pipelines
    }

    /// The pipeline numbered `id`.
    public func pipeline(_ id: Pipeline.ID) -> Pipeline? {
        pipelines.indices.contains(id.rawValue - 1) ? pipelines[id.rawValue - 1] : nil
    }

    /// The pipeline a hop belongs to.
    public func pipeline(of lifecycle: Lifecycle.ID) -> Pipeline {
        pipelines[pipelineOfLifecycle[lifecycle.rawValue]]
    }

    /// The pipelines a person's reference names: an id (`P3`), else every pipeline whose
    /// `.lifeline` label or call site is exactly `reference`.
    public func pipelines(named reference: String) -> [Pipeline] {
        if let id = Pipeline.ID(reference), let pipeline = pipeline(id) { return [pipeline] }
        return pipelines.filter { $0.label == reference || $0.sourceLocation == reference || $0.name == reference }
    }

    /// The pipelines a finding is about: those holding an object it names, or, when no
    /// pipeline holds one (a finding about objects only snapshots saw), those holding an event
    /// it cites. An event a finding cites for its moment (the last event before a snapshot)
    /// may be another pipeline's: it never takes the finding to that pipeline.
    public func pipelines(citedBy diagnosis: Diagnosis) -> [Pipeline.ID] {
        pipelines(citedBy: [diagnosis])[0]
    }

    /// The pipelines each of `diagnoses` is about, as the pipelines a single finding is about
    /// are found: in one pass over the pipelines, whatever the number of findings.
    public func pipelines(citedBy diagnoses: [Diagnosis]) -> [[Pipeline.ID]] {
        var byObject: [TraceObjectID: [Int]] = [:], byEvent: [UInt64: [Int]] = [:]
        for (index, diagnosis) in diagnoses.enumerated() {
            for object in Set(diagnosis.objects) { byObject[object, default: []].append(index) }
            for seq in Set(diagnosis.evidence) { byEvent[seq, default: []].append(index) }
        }
        var byObjects = [[Pipeline.ID]](repeating: [], count: diagnoses.count)
        var byEvents = byObjects
        guard !diagnoses.isEmpty else { return byObjects }
        var citing = Set<Int>()
        for pipeline in pipelines {
            citing.removeAll(keepingCapacity: true)
            for object in pipeline.objects { citing.formUnion(byObject[object, default: []]) }
            for index in citing { byObjects[index].append(pipeline.id) }
            citing.removeAll(keepingCapacity: true)
            for seq in pipeline.events { citing.formUnion(byEvent[seq, default: []]) }
            for index in citing { byEvents[index].append(pipeline.id) }
        }
        return zip(byObjects, byEvents).map { objects, events in objects.isEmpty ? events : objects }
    }

    /// Whether `call` delivers a value or a completion to a subscriber that passes nothing on
    /// (a `sink`, `assign` or hand-written subscriber at a pipeline's end): what runs inside it
    /// is the program's own code.
    private static func isDeliveryToAnEnd(_ call: TraceCall, of outer: Lifecycle.ID, in lifecycles: TraceLifecycles) -> Bool {
        guard lifecycles.event(call.begin)?.kind.isDelivery == true else { return false }
        return !lifecycles.lifecycles[outer.rawValue].subscriberRelaysDownstream
    }

    /// Whether a group's first hop ends there: it was subscribed inside another call, yet is
    /// a subscriber that received values and passed none on.
    private static func endsThere(_ first: Lifecycle, forwarding: Bool) -> Bool {
        !first.deliveries.isEmpty && !first.subscriberRelaysDownstream && !forwarding
    }

    private static func pipeline(
        id: Pipeline.ID, end: Lifecycle, hops: [Int], in all: [Lifecycle], objects: [TraceObjectID], events: [UInt64],
        sharesUpstreamWith: [Pipeline.ID], waits: [String], lifecycles: TraceLifecycles
    ) -> Pipeline {
        let trace = lifecycles.trace
        // The place and label of the end, else the first the hops' objects have, looked for in
        // one pass and only when the end does not say.
        let endObject = trace.object(end.subscriber)
        var location = endObject?.placeName, label = endObject?.label
        if location == nil || label == nil {
            for object in hops.lazy.flatMap({ [all[$0].subscriber] + [all[$0].subscription].compactMap { $0 } }).compactMap(trace.object) {
                if location == nil { location = object.placeName }
                if label == nil { label = object.label }
                if location != nil && label != nil { break }
            }
        }
        let type = endObject.map { "\($0.shortTypeName) \($0.id)" } ?? "object \(end.subscriber)"
        let name = location ?? label.map { "\"\($0)\"" } ?? type

        let state: Pipeline.State
        switch end.transitions.first(where: { $0.state != .awaitingSubscription && $0.state != .subscribed })?.state {
        case .completed: state = end.completions.first?.completion == .finished ? .finished : .failed
        case .cancelled: state = .cancelled
        case .deallocated: state = .deallocated
        default: state = trace.damage.contains(.notClosed) ? .waiting : .live
        }
        return Pipeline(
            id: id, end: end.id, lifecycles: hops.map { all[$0].id }, objects: objects, events: events, name: name,
            label: label, sourceLocation: location, values: end.deliveries.count, state: state,
            sharesUpstreamWith: sharesUpstreamWith, repetition: nil,
            waitsOn: state == .waiting && !waits.isEmpty ? waits.joined(separator: "; ") : nil
        )
    }
}

extension TraceEvent.Kind {
    /// Whether the event delivers a value or a completion to a subscriber.
    var isDelivery: Bool {
        switch self {
        case .value, .completion: return true
        default: return false
        }
    }
}

/// Disjoint sets over `0..<count`, for grouping linked hops.
private struct UnionFind {
    private var parent: [Int]

    init(count: Int) {
        parent = Array(0..<count)
    }

    mutating func root(_ element: Int) -> Int {
        var element = element
        while parent[element] != element {
            parent[element] = parent[parent[element]]
            element = parent[element]
        }
        return element
    }

    /// Joins two sets; the smaller root stays root, so roots are each set's first element.
    mutating func union(_ a: Int, _ b: Int) {
        let (rootA, rootB) = (root(a), root(b))
        guard rootA != rootB else { return }
        parent[max(rootA, rootB)] = min(rootA, rootB)
    }
}
