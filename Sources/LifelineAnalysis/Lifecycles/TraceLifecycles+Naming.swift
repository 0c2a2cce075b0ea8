import LifelineLog

extension TraceLifecycles {
    /// How a finding names an object: its short type, label and id, and the file and line where
    /// the program made its pipeline, as `Sink "ui" #7 (SearchViewModel.swift:24)`. (Reports
    /// head each subscription's findings with the function too.)
    ///
    /// An object the recorder declared without a place of its own gets the place of the
    /// subscribe that made it:
    /// - a subscriber declared before the recorder saw its subscribe (a hand-written subscriber
    ///   that a per-call snapshot found first) gets the place of the subscription its first
    ///   subscribe handed it, which the same top-level subscribe made;
    /// - an operator's subscription first met inside a subscribe call (a value-type
    ///   subscription such as `autoconnect()`'s, handed down while a `sink` subscribes) gets
    ///   the place of the innermost subscribe around it whose subscriber has one: the subscribe
    ///   or `sink` call in the program's code that made the pipeline. One that several
    ///   subscribes got (`Subscriptions.empty`) gets none.
    func name(_ object: TraceObjectID) -> String {
        guard let declared = trace.object(object) else { return "object \(object)" }
        guard declared.placeName == nil, let place = place(of: object) else { return declared.placedName }
        return "\(declared.displayName) (\(place))"
    }

    /// Where the program made `object`'s pipeline, as ``name(_:)`` gives it: `SearchViewModel.swift:24`.
    func place(of object: TraceObjectID) -> String? {
        trace.object(object)?.placeName ?? subscribedPlace(of: object) ?? enclosingSubscribePlace(of: object)
    }

    /// The place of the subscription that `subscriber`'s first subscribe call made: first seen
    /// inside that call, so made by the same top-level subscribe as the subscriber's hop.
    private func subscribedPlace(of subscriber: TraceObjectID) -> String? {
        guard let first = lifecycleIDs(ofSubscriber: subscriber).first.map(lifecycle), let subscribe = first.subscribeCall,
              let subscription = first.subscription, let place = trace.object(subscription)?.placeName,
              let seen = firstSeen(subscription),
              calls.firstEnclosingCall(of: seen, where: { $0.begin == subscribe }) != nil
        else { return nil }
        return place
    }

    /// The place of the innermost subscribe call running when `object`, the subscription of
    /// one chain of hops, was first met (the one that event begins included) whose subscriber
    /// has a place. A publisher can be subscribed from many places (a subject, a `share()`),
    /// and a value-type subscription handed to several subscribers is one object to all of
    /// them, so neither gets one.
    private func enclosingSubscribePlace(of object: TraceObjectID) -> String? {
        guard isSubscriptionOfOneChain(object), let seen = firstSeen(object) else { return nil }
        func place(ofSubscribe seq: UInt64) -> String? {
            guard let event = event(seq), event.phase == .begin, case .subscribe(_, let subscriber) = event.kind else { return nil }
            return trace.object(subscriber)?.placeName
        }
        if let place = place(ofSubscribe: seen) { return place }
        var found: String?
        _ = calls.firstEnclosingCall(of: seen) { call in
            found = place(ofSubscribe: call.begin)
            return found != nil
        }
        return found
    }

    /// How a finding names an optional object.
    func name(_ object: TraceObjectID?, otherwise: String) -> String {
        object.map(name) ?? otherwise
    }
}

extension TraceDemand {
    /// The demand as Swift spells it: `.none`, `.max(3)`, `.unlimited`.
    var swiftSpelling: String {
        switch self {
        case .unlimited: return ".unlimited"
        case .max(0): return ".none"
        case .max(let count): return ".max(\(count))"
        }
    }

    /// The demand as a count of values: `unlimited values`, `1 value`, `3 values`.
    var valuesPhrase: String {
        switch self {
        case .unlimited: return "unlimited values"
        case .max(1): return "1 value"
        case .max(let count): return "\(count) values"
        }
    }
}

extension TraceEvent.Completion {
    /// The completion as Swift spells it: `.finished`, `.failure(URLError(-1001))`.
    var swiftSpelling: String {
        switch self {
        case .finished: return ".finished"
        case .failure(let description): return ".failure(\(description))"
        }
    }
}
