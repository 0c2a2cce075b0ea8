import LifelineLog

/// Orders a trace's objects upstream to downstream, as a pipeline reads left to right.
///
/// Edges come from the handshake: `subscribe(P, X)` puts publisher P upstream of subscriber X;
/// `receive(subscription: S)` on X puts S upstream of X, and X's publisher upstream of S.
/// One object can play several roles (OpenCombine's `Map.Inner` is a subscriber upstream and
/// the subscription downstream), so the edges follow the events, not the declared roles.
///
/// A `subscribe(P2, Y)` made while `subscribe(P, X)` runs on the same thread puts Y upstream
/// of X: that is how an operator's publisher subscribes its inner subscriber upstream, and
/// it places OpenCombine's `Map.Inner`, which hands the upstream subscription straight down
/// to X, beside X rather than after it.
///
/// Each most-downstream object is placed after everything upstream of it, subscriptions
/// before publishers, so a chain reads `Subject, Conduit, Map, Map.Inner, Sink` and a second
/// subscriber of the same subject follows the first one's chain. Cycles, which only a damaged
/// trace can hold, are broken where they are found.
enum LaneOrder {
    /// Every object the events name, upstream first.
    static func objects(in events: [TraceEvent]) -> [TraceObjectID] {
        // Objects are found by id in tables, not hashed: a log of 80,000 pipelines has 250,000.
        let objectCount = events.count
        var firstSeen: [TraceObjectID] = []
        var known = ObjectTable<Bool>(objectCount: objectCount)
        var subscriptionUpstreams = ObjectTable<[TraceObjectID]>(objectCount: objectCount)
        var publisherUpstreams = ObjectTable<[TraceObjectID]>(objectCount: objectCount)
        var hasDownstream = ObjectTable<Bool>(objectCount: objectCount)
        var publisherOf = ObjectTable<TraceObjectID>(objectCount: objectCount)
        var nestedUpstreams = ObjectTable<[TraceObjectID]>(objectCount: objectCount)
        var openSubscribes: [UInt64: [TraceObjectID]] = [:]

        // Each edge once. An object's few upstreams are searched one by one; once it has many
        // (a subscriber re-subscribed 100,000 times by `retry` has as many), too many to search
        // for every new one, its edges of that kind are found by hashing instead.
        var linked = Set<Edge>()
        let searchedEdges = 16

        func link(
            _ upstream: TraceObjectID, to downstream: TraceObjectID, kind: Edge.Kind,
            in edges: inout ObjectTable<[TraceObjectID]>
        ) {
            guard upstream != downstream else { return }
            // The edges are looked at in a scope of their own: no copy of them is left alive
            // when the new one is appended, which would copy the whole list.
            do {
                let known = edges[downstream, default: []]
                if known.count < searchedEdges {
                    guard !known.contains(upstream) else { return }
                    if known.count == searchedEdges - 1 {
                        for earlier in known { linked.insert(Edge(upstream: earlier, downstream: downstream, kind: kind)) }
                        linked.insert(Edge(upstream: upstream, downstream: downstream, kind: kind))
                    }
                } else {
                    guard linked.insert(Edge(upstream: upstream, downstream: downstream, kind: kind)).inserted else { return }
                }
            }
            edges[downstream, default: []].append(upstream)
            hasDownstream[upstream] = true
        }
        func see(_ object: TraceObjectID) {
            guard known[object] == nil else { return }
            known[object] = true
            firstSeen.append(object)
        }

        for event in events {
            event.kind.forEachObject(see)
            switch event.kind {
            case .subscribe(let publisher, let subscriber):
                publisherOf[subscriber] = publisher
                link(publisher, to: subscriber, kind: .publisher, in: &publisherUpstreams)
                switch event.phase {
                case .begin:
                    if let outer = openSubscribes[event.thread]?.last { link(subscriber, to: outer, kind: .nested, in: &nestedUpstreams) }
                    openSubscribes[event.thread, default: []].append(subscriber)
                case .end:
                    if let position = openSubscribes[event.thread]?.lastIndex(of: subscriber) {
                        openSubscribes[event.thread]!.removeSubrange(position...)
                    }
                case .instant:
                    break
                }
            case .receiveSubscription(let subscriber, let subscription):
                link(subscription, to: subscriber, kind: .subscription, in: &subscriptionUpstreams)
                if let publisher = publisherOf[subscriber] {
                    link(publisher, to: subscription, kind: .publisher, in: &publisherUpstreams)
                }
            default:
                break
            }
        }

        var ordered: [TraceObjectID] = []
        var visited = ObjectTable<Bool>(objectCount: objectCount)
        let roots = firstSeen.filter { hasDownstream[$0] == nil } + firstSeen
        for root in roots where visited[root] == nil {
            // Depth-first, upstream neighbours first; an explicit stack so that a chain of
            // thousands of hops cannot overflow the call stack.
            visited[root] = true
            // An object's upstreams are its subscriptions', then its publishers', then its nested
            // subscribers' edges, taken from the three tables in turn: no array is joined per object.
            func upstream(of object: TraceObjectID, at position: Int) -> TraceObjectID? {
                var position = position
                if let edges = subscriptionUpstreams[object] {
                    if position < edges.count { return edges[position] }
                    position -= edges.count
                }
                if let edges = publisherUpstreams[object] {
                    if position < edges.count { return edges[position] }
                    position -= edges.count
                }
                if let edges = nestedUpstreams[object], position < edges.count { return edges[position] }
                return nil
            }
            var stack: [(object: TraceObjectID, next: Int)] = [(root, 0)]
            while let top = stack.last {
                if let upstream = upstream(of: top.object, at: top.next) {
                    stack[stack.count - 1].next += 1
                    if visited[upstream] == nil {
                        visited[upstream] = true
                        stack.append((upstream, 0))
                    }
                } else {
                    ordered.append(top.object)
                    stack.removeLast()
                }
            }
        }
        return ordered
    }

    /// An edge between two objects, by the handshake step that made it.
    private struct Edge: Hashable {
        enum Kind { case subscription, publisher, nested }
        let upstream: TraceObjectID
        let downstream: TraceObjectID
        let kind: Kind
    }
}
