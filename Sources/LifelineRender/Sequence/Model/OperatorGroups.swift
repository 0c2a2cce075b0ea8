import LifelineAnalysis
import LifelineLog

/// Which objects `--collapse operators` folds into one lane per pipeline.
///
/// A pipeline keeps its ends as lanes of their own: its subscriber (the end of the top-level
/// subscribe) and its sources (subjects, futures, hand-written publishers and the
/// subscriptions they hand out). Everything an operator adds between them is folded: every
/// other subscriber (an operator's stage, a `flatMap` inner) and every publisher that
/// answered a subscribe by subscribing upstream (an operator's publisher, a `share`).
/// An object in several pipelines is folded into the first one's group.
///
/// The subscription an operator's publisher hands out is folded with it, unless it is a
/// source's, passed on as it is (OpenCombine's `filter` hands its downstream the subscription
/// it got): that one stays on its source's lane, so that the source's values are drawn going
/// into the folded operators instead of vanishing inside them. Sources that come and go one
/// after another (the `Future` a `flatMap` subscribes per value) share one lane
/// per type; see ``SequenceModel``.
///
/// A pipeline nested in another one (subscribed from inside a delivery to the other's end,
/// as an uploader's `receive(_:)` subscribes each upload, and counted in that pipeline
/// because it received no value) is a group of its own with its own end: its operators are
/// not folded into the outer pipeline's, where its subscribe and its completion would vanish.
struct OperatorGroups {
    /// The group of every folded object: a pipeline's index, counted from 0, or for a nested
    /// pipeline a number after the pipelines'.
    let groupOf: [TraceObjectID: Int]
    /// The group (a pipeline's index, or a nested pipeline's number) of every object of a
    /// pipeline: the first one that names it.
    let pipelineOf: [TraceObjectID: Int]
    /// How people name each group's pipeline (``Pipeline/name``: its call site, label or end
    /// subscriber), which stays the same in a picture of some of the pipelines, where ids are
    /// numbered afresh.
    let pipelineNames: [Int: String]
    /// The end subscriber of each group's pipeline.
    let ends: [Int: TraceObjectID]
    /// Each folded publisher's distance upstream from its pipeline's end, in hops: what orders
    /// a group's heading as the code chains the operators.
    let hopsFromEnd: [TraceObjectID: Int]
    /// The source publisher each unfolded subscription came from: a source and the
    /// subscriptions it hands out share one lane.
    let sourceOf: [TraceObjectID: TraceObjectID]

    /// Groups the objects of the trace `lifecycles` were rebuilt from, whose `pipelines` are
    /// found again when not given.
    init(_ lifecycles: TraceLifecycles, pipelines: TracePipelines? = nil) {
        let trace = lifecycles.trace
        let pipelines = pipelines ?? TracePipelines(lifecycles)
        var forwardingPublishers = Set<TraceObjectID>()
        // The publisher that subscribed each subscriber last and innermost, where one publisher
        // passed the subscriber itself on to another (`Deferred` to the `Future` it made): the
        // one that handed out its subscription.
        var handingPublisherOf: [TraceObjectID: TraceObjectID] = [:]
        for event in trace.events where event.phase == .begin {
            guard case .subscribe(let publisher, let subscriber) = event.kind,
                  let parent = lifecycles.calls.call(at: event.seq)?.parent,
                  case .subscribe(let outer, let outerSubscriber)? = lifecycles.event(parent)?.kind, outer != publisher else { continue }
            forwardingPublishers.insert(outer)
            if outerSubscriber == subscriber { handingPublisherOf[subscriber] = publisher }
        }
        // A publisher whose subscriber was handed an operator's stage as its subscription is
        // an operator too, even when it subscribes upstream later (`subscribe(on:)`).
        // Lifecycles are read field by field by index, never copied whole: a copy retains its
        // nine arrays, and a retry has a hundred thousand lifecycles.
        let all = lifecycles.lifecycles
        let stages = Set(all.indices.lazy.map { all[$0].subscriber })
        for index in all.indices {
            if let publisher = all[index].publisher, let subscription = all[index].subscription, stages.contains(subscription) {
                forwardingPublishers.insert(publisher)
            }
        }
        // The subscriptions sources hand out: an operator that passes one on hands out no stage
        // of its own.
        var sourceSubscriptions = Set<TraceObjectID>()
        for index in all.indices {
            if let publisher = handingPublisherOf[all[index].subscriber] ?? all[index].publisher,
               !forwardingPublishers.contains(publisher),
               let subscription = all[index].subscription, !stages.contains(subscription) {
                sourceSubscriptions.insert(subscription)
            }
        }
        var groupOf: [TraceObjectID: Int] = [:]
        var pipelineOf: [TraceObjectID: Int] = [:]
        var names: [Int: String] = [:]
        var ends: [Int: TraceObjectID] = [:]
        var hopsFromEnd: [TraceObjectID: Int] = [:]
        // A pipeline subscribed from inside a delivery to another pipeline's end (a sink made
        // in a hand-written subscriber's `receive(_:)`) that joined that pipeline, because it
        // received no values, is a group of its own: numbered after the pipelines.
        var nestedCount = 0
        var groupNames: [Int: String] = [:]
        for (index, pipeline) in pipelines.pipelines.enumerated() {
            let members = Set(pipeline.lifecycles.lazy.map(\.rawValue))
            let nestedEnds = pipeline.lifecycles.filter { hop in
                hop != pipeline.end && Self.isNestedEnd(all[hop.rawValue], in: lifecycles)
            }
            var groupOfHop: [Int: Int] = [:]
            for end in [pipeline.end] + nestedEnds {
                let group = end == pipeline.end ? index : pipelines.pipelines.count + nestedCount
                if end != pipeline.end { nestedCount += 1 }
                ends[group] = all[end.rawValue].subscriber
                groupNames[group] = end == pipeline.end ? pipeline.name
                    : trace.object(all[end.rawValue].subscriber)?.placeName ?? pipeline.name
                // Breadth-first up the chain from the end hop: a resubscribed hop (`retry`) is
                // as far from the end as the hop it replaces.
                var distance = [end.rawValue: 0]
                var queue = [end.rawValue]
                var position = 0
                while position < queue.count {
                    let hop = queue[position]
                    position += 1
                    if groupOfHop[hop] == nil { groupOfHop[hop] = group }
                    if let publisher = all[hop].publisher, hopsFromEnd[publisher] == nil { hopsFromEnd[publisher] = distance[hop]! }
                    for upstream in all[hop].upstream.lazy.map(\.rawValue)
                    where distance[upstream] == nil && members.contains(upstream) && groupOfHop[upstream] == nil {
                        distance[upstream] = distance[hop]! + 1
                        queue.append(upstream)
                    }
                }
            }
            for hop in pipeline.lifecycles.lazy.map(\.rawValue) {
                let group = groupOfHop[hop] ?? index
                for object in [all[hop].subscriber, all[hop].publisher, all[hop].subscription].compactMap({ $0 })
                where pipelineOf[object] == nil {
                    pipelineOf[object] = group
                }
            }
            for object in pipeline.objects where pipelineOf[object] == nil { pipelineOf[object] = index }
            for hop in pipeline.lifecycles.lazy.map(\.rawValue) {
                let group = groupOfHop[hop] ?? index
                let end = ends[group]!
                var folded: [TraceObjectID] = []
                if all[hop].subscriber != end { folded.append(all[hop].subscriber) }
                if let publisher = all[hop].publisher, forwardingPublishers.contains(publisher) {
                    folded.append(publisher)
                    if let subscription = all[hop].subscription, !sourceSubscriptions.contains(subscription) {
                        folded.append(subscription)
                    }
                }
                for object in folded where groupOf[object] == nil && object != end {
                    groupOf[object] = group
                    names[group] = groupNames[group]
                }
            }
        }
        self.groupOf = groupOf
        self.pipelineOf = pipelineOf
        self.ends = ends
        self.hopsFromEnd = hopsFromEnd
        var sourceOf: [TraceObjectID: TraceObjectID] = [:]
        for index in all.indices {
            guard let publisher = handingPublisherOf[all[index].subscriber] ?? all[index].publisher,
                  let subscription = all[index].subscription,
                  groupOf[publisher] == nil, groupOf[subscription] == nil, !stages.contains(subscription),
                  sourceOf[subscription] == nil else { continue }
            sourceOf[subscription] = publisher
        }
        self.sourceOf = sourceOf
        pipelineNames = names
    }

    /// Whether `lifecycle` ends a pipeline of its own that another subscriber's code subscribed
    /// while being delivered to: not a subscriber subscribing itself again from its own
    /// completion, as a `retry` does.
    private static func isNestedEnd(_ lifecycle: Lifecycle, in lifecycles: TraceLifecycles) -> Bool {
        guard lifecycles.isPipelineEnd(lifecycle), let first = lifecycle.subscribeCall ?? lifecycle.subscriptionCall,
              let parent = lifecycles.calls.call(at: first)?.parent, let kind = lifecycles.event(parent)?.kind else { return false }
        switch kind {
        case .value(let receiver, _, _), .completion(let receiver, _), .receiveSubscription(let receiver, _):
            return receiver != lifecycle.subscriber
        default:
            return false
        }
    }
}
