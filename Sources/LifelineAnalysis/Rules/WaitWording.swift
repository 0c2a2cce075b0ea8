import LifelineLog

/// How a `waits-on` finding tells a chain of waiting hops: each hop's demand, values and calls
/// in progress, where the chain ends and why, the events that prove it, and the fix.
struct WaitWording {
    let lifecycles: TraceLifecycles
    /// The hop at the end of the pipeline, whose place names the stages that have none.
    let end: Lifecycle

    // MARK: Each hop

    /// What the hop's subscriber stands at: `it asked PassthroughSubject #2 for unlimited
    /// values and received none (unlimited demand outstanding)`, with its calls still in
    /// progress.
    func state(of lifecycle: Lifecycle) -> String {
        let source = sourceName(of: lifecycle)
        var state: String
        if lifecycle.state == .awaitingSubscription {
            state = "it was subscribed to \(source) and has received no subscription"
        } else if lifecycle.totalDemand == .none {
            state = "it was handed \(handedName(of: lifecycle)) and asked it for no values"
        } else {
            state = "it asked \(source) for \(lifecycle.totalDemand.valuesPhrase) and received "
                + "\(count(lifecycle.deliveries.count)) (\(outstandingPhrase(lifecycle.outstandingDemand)))"
        }
        if let completion = lifecycle.completions.first {
            state += "; it received \(completion.completion.swiftSpelling) at @\(completion.seq)"
        }
        for begin in HopWait.callsInProgress(of: lifecycle, in: lifecycles) {
            state += "; its \(callName(begin)) began at @\(begin) on \(context(of: begin)) and never returned"
        }
        return state
    }

    /// How the finding names a hop's subscriber: with its own place, else with the place
    /// where the pipeline's end was made (the same top-level subscribe made the operators'
    /// stages, as `First.Inner #3 (Search.swift:12)`), else with none.
    func stageName(_ lifecycle: Lifecycle) -> String {
        let name = lifecycles.name(lifecycle.subscriber)
        guard lifecycles.place(of: lifecycle.subscriber) == nil, let place = lifecycles.place(of: end.subscriber),
              let declared = lifecycles.trace.object(lifecycle.subscriber) else { return name }
        return "\(declared.displayName) (\(place))"
    }

    /// The sentences that follow a hop upstream: each hop it waits on, the hops it does not
    /// wait on because they are ahead, and why the chain ends where it does.
    func upstreamSentences(of wait: HopWait) -> [String] {
        let waits = wait.next
        guard !waits.isEmpty else { return [ending(of: wait)] }
        let waiter = stageName(wait.lifecycle)
        var sentences: [String] = []
        if case .innerPublishers = wait.reason {
            sentences.append("\(waiter) asked for \(wait.lifecycle.totalDemand.valuesPhrase), received all of them, and asks for "
                + "no more while the publishers it subscribed for them run (it asks for more, or finishes, only as they finish).")
        }
        for upstream in waits {
            var sentence = "\(waiter) waits on \(stageName(upstream.lifecycle)): \(state(of: upstream.lifecycle))"
            if let held = heldBack(by: upstream.lifecycle, below: wait.lifecycle) { sentence += "; \(held)" }
            sentences.append(sentence + ".")
        }
        if !wait.ahead.isEmpty {
            let told = wait.ahead.map { ahead in
                "\(stageName(ahead)), which received \(count(ahead.deliveries.count))"
                    + (ahead.deliveries.last.map { " (the last at @\($0.begin))" } ?? "")
            }
            sentences.append("It does not wait on the rest of its upstream, which is ahead: \(told.joined(separator: ", ")), "
                + "while \(waiter) received \(count(wait.lifecycle.deliveries.count)).")
        }
        sentences += waits.flatMap(upstreamSentences)
        return sentences
    }

    /// The values `upstream` received that never reached the hop `below` it, when the two are
    /// one chain (no other hop feeds `below`, so the counts compare).
    private func heldBack(by upstream: Lifecycle, below: Lifecycle) -> String? {
        guard below.upstream == [upstream.id] else { return nil }
        let held = upstream.deliveries.count - below.deliveries.count
        guard held > 0, let last = upstream.deliveries.last else { return nil }
        return "\(held) of them (the last at @\(last.begin)) never reached \(stageName(below))"
    }

    /// Why the chain ends at `wait`, a hop that waits on no hop upstream.
    private func ending(of wait: HopWait) -> String {
        let lifecycle = wait.lifecycle
        let name = stageName(lifecycle)
        switch wait.reason {
        case .upstream, .innerPublishers:
            return ""
        case .scheduledValues(let held):
            var holds = held > 0 ? ["\(count(held)) it received and did not pass on"] : []
            if let completion = lifecycle.completions.first {
                holds.append("the \(completion.completion.swiftSpelling) it received at @\(completion.seq)")
            }
            return "\(name) cannot move on: it holds \(holds.joined(separator: " and ")), which it hands to its scheduler, and the "
                + "scheduler had not run them when the log ended (its queue blocked or busy: the log does not say which)."
        case .callInProgress(let begin):
            return "\(name) cannot move: its \(callName(begin)) began at @\(begin) on \(context(of: begin)) and never returned, "
                + "so it is blocked in the code that call runs, or in what that code waits for."
        case .noSubscription:
            let subscribed = lifecycle.subscribeCall.map { " at @\($0)" } ?? ""
            return "\(name) cannot move: it was subscribed to \(sourceName(of: lifecycle))\(subscribed) and never received a "
                + "subscription; the log does not say why (a scheduler that never ran the subscribe, or a publisher that never "
                + "answers: unknown)."
        case .neverRequested:
            let handed = lifecycle.subscriptionCall.map { " at @\($0)" } ?? ""
            return "\(name) cannot move: it was handed \(handedName(of: lifecycle))\(handed) and never asked for a value "
                + "(no request(_:), no demand returned from receive(_:)), so nothing can reach it."
        case .demandUsedUp:
            let last = lifecycle.deliveries.last.map { " (the last at @\($0.begin))" } ?? ""
            return "\(name) cannot move: it asked for \(lifecycle.totalDemand.valuesPhrase), received all of them\(last), "
                + "and asked for no more."
        case .ended:
            return "\(name) cannot move: it \(endPhrase(of: lifecycle)), and that never reached the hop below it; the log does "
                + "not say why (unknown)."
        case .silentPublisher:
            return silence(of: lifecycle)
        }
    }

    /// Why a publisher that was asked for values sent nothing more, as far as its type says:
    /// a `Future` that delivered nothing has not had its promise called; a subject keeps no
    /// value sent before a subscriber asks.
    private func silence(of lifecycle: Lifecycle) -> String {
        let since = lifecycle.grants.first.map { " since \(stageName(lifecycle)) asked it for values at @\($0.seq)" } ?? ""
        let nothing = lifecycle.deliveries.last.map { "nothing after its last value at @\($0.begin)" } ?? "nothing"
        let asked = lifecycle.grants.first.map { ", though \(stageName(lifecycle)) asked it for values at @\($0.seq)" } ?? ""
        guard let publisher = lifecycle.publisher, let type = lifecycles.trace.object(publisher)?.shortTypeName else {
            return "\(sourceName(of: lifecycle)) cannot move: it sent \(nothing) and did not finish\(asked); the log shows no "
                + "subscribe call that says which publisher it belongs to (unknown)."
        }
        let name = lifecycles.name(publisher)
        if type == "Future", lifecycle.deliveries.isEmpty {
            return "\(name) cannot move: its promise had not been called when the log ended: it delivered nothing\(since)."
        }
        if type.hasSuffix("Subject") {
            let after = lifecycle.deliveries.last.map { " after its last value at @\($0.begin)" } ?? since
            return "\(name) cannot move: nothing was sent to it\(after) (a subject keeps no value sent before a subscriber "
                + "asks), and the log does not say whether any code still meant to send."
        }
        let silent = "\(name) cannot move: it sent \(nothing) and did not finish\(asked)"
        let later = demandAfterLastValue(of: lifecycle)
        guard !later.isEmpty else { return silent + "; the log does not say why (unknown)." }
        let granted = later.map { grant in
            grant.source == .request ? "\(grant.demand.swiftSpelling) requested at @\(grant.seq)"
                : "\(grant.demand.swiftSpelling) returned from receive(_:) at @\(grant.seq)"
        }
        return silent + ". Nothing came for the demand granted after its last value (\(granted.joined(separator: ", "))): a "
            + "subscription that ignores demand added once it has begun sending (one that drops what receive(_:) returns, or "
            + "keeps only its first request) stops exactly there, but the log does not say whether that is why (unknown)."
    }

    /// The demand the hop's subscriber granted once its last value had begun: what a
    /// subscription that ignores additive demand never sends for.
    private func demandAfterLastValue(of lifecycle: Lifecycle) -> [Lifecycle.DemandGrant] {
        guard let last = lifecycle.deliveries.last else { return [] }
        return lifecycle.grants.filter { $0.seq > last.begin && $0.demand != .none }
    }

    // MARK: The chain

    /// Each path from `wait` to a hop that cannot move, as `Sink #5 → First #4 →
    /// PassthroughSubject #2`.
    func chains(from wait: HopWait) -> [String] {
        let name = stageName(wait.lifecycle)
        let waits = wait.next
        guard !waits.isEmpty else {
            switch wait.reason {
            case .silentPublisher, .noSubscription: return ["\(name) → \(sourceName(of: wait.lifecycle))"]
            case .ended: return ["\(name) (ended)"]
            default: return [name]
            }
        }
        return waits.flatMap { chains(from: $0) }.map { "\(name) → \($0)" }
    }

    /// The events that prove what `wait`'s hop stands at: its subscribe call and handshake,
    /// its first and last grants of demand, its last value, its calls that never returned,
    /// and the end of the hop upstream it waited on.
    func evidence(of wait: HopWait) -> [UInt64] {
        let lifecycle = wait.lifecycle
        var evidence = [lifecycle.subscribeCall, lifecycle.subscriptionCall, lifecycle.grants.first?.seq,
                        lifecycle.grants.last?.seq, lifecycle.deliveries.last?.begin].compactMap { $0 }
        evidence += HopWait.callsInProgress(of: lifecycle, in: lifecycles)
        if case .ended = wait.reason, let end = lifecycle.end { evidence.append(end) }
        if case .scheduledValues = wait.reason, let completion = lifecycle.completions.first { evidence.append(completion.seq) }
        evidence += wait.ahead.compactMap { $0.deliveries.last?.begin }
        return evidence
    }

    /// What to change where the chain ends at `wait`.
    func fix(for wait: HopWait) -> String {
        let name = stageName(wait.lifecycle)
        switch wait.reason {
        case .upstream, .innerPublishers:
            return ""
        case .scheduledValues:
            return "Let the scheduler that \(name) delivers on run: don't block its queue (a semaphore, a lock, or a sync call "
                + "waiting on it) while the pipeline must deliver, and keep long work off it."
        case .callInProgress(let begin):
            return "Let the \(callName(begin)) of \(name) return: don't block inside a subscriber's or a subscription's call "
                + "(a semaphore, a lock, or DispatchQueue.sync onto the queue the call runs on); hand long work to another "
                + "queue and deliver its result as a value."
        case .noSubscription:
            return "Make sure the publisher \(name) was subscribed to hands out its subscription: a subscribe(on:) scheduler "
                + "must run, and a hand-written publisher must call receive(subscription:)."
        case .neverRequested:
            return "Have \(name) ask for values: call request(_:) on the subscription in receive(subscription:) (or return "
                + "demand from receive(_:)), or subscribe with sink, which asks for unlimited values."
        case .demandUsedUp:
            return "Ask for more when \(name) is ready (call request(_:) again, or return .max(n) from receive(_:)), or cancel "
                + "the subscription once no more values are wanted."
        case .ended:
            return "Find out why \(name) did not pass its end on to the hop below it."
        case .silentPublisher:
            let type = wait.lifecycle.publisher.flatMap { lifecycles.trace.object($0)?.shortTypeName }
            if type == "Future" {
                return "Call the Future's promise on every path of its closure, failures included."
            }
            if type?.hasSuffix("Subject") == true {
                return "Send to the subject after the pipeline has subscribed (or use CurrentValueSubject, which keeps the "
                    + "latest value), and make sure the code that sends runs; add timeout(_:scheduler:) where the value may "
                    + "never come."
            }
            if !demandAfterLastValue(of: wait.lifecycle).isEmpty {
                return "If the subscription is your own, make it add up demand: every request(_:) and every demand receive(_:) "
                    + "returns adds to what it owes, and each value sent uses one. Otherwise find out why the publisher stopped "
                    + "sending, and add timeout(_:scheduler:) where the value may never come."
            }
            return "Find out why the publisher stopped sending, and add timeout(_:scheduler:) where the value may never come."
        }
    }

    // MARK: In a few words

    /// What a picture writes beside a hop that waits on others: `waits on First.Inner #3
    /// (Search.swift:12)`, several joined with `and`.
    func briefWait(of wait: HopWait) -> String {
        "waits on " + wait.next.map { stageName($0.lifecycle) }.joined(separator: " and ")
    }

    /// The publisher a hop where the chain ends waits on, when it waits on one (one that sends
    /// nothing more, or hands over no subscription): its name and its objects, the publisher
    /// first; `nil` for a hop that cannot move by itself.
    func awaitedSource(of wait: HopWait) -> (name: String, objects: [TraceObjectID])? {
        switch wait.reason {
        case .silentPublisher, .noSubscription:
            let lifecycle = wait.lifecycle
            return (sourceName(of: lifecycle), [lifecycle.publisher, lifecycle.subscription].compactMap { $0 })
        default:
            return nil
        }
    }

    /// Why the chain ends at `wait`, in a few words: `never asked for a value`, `its promise
    /// was never called`; said of the publisher it waits on where ``awaitedSource(of:)`` names one.
    func briefEnding(of wait: HopWait) -> String {
        let lifecycle = wait.lifecycle
        switch wait.reason {
        case .upstream, .innerPublishers:
            return briefWait(of: wait)
        case .scheduledValues(let held):
            var holds = held > 0 ? [count(held)] : []
            if let completion = lifecycle.completions.first { holds.append(completion.completion.swiftSpelling) }
            return "holds \(holds.joined(separator: " and ")) for a scheduler that never ran"
        case .callInProgress(let begin):
            return "its \(callName(begin)) at @\(begin) never returned"
        case .noSubscription:
            return "handed over no subscription"
        case .neverRequested:
            return "never asked for a value"
        case .demandUsedUp:
            return lifecycle.deliveries.isEmpty ? "asked for no more" : "asked for no more after \(count(lifecycle.deliveries.count))"
        case .ended:
            return "\(endPhrase(of: lifecycle)), never passed on"
        case .silentPublisher:
            let type = lifecycle.publisher.flatMap { lifecycles.trace.object($0)?.shortTypeName }
            if type == "Future", lifecycle.deliveries.isEmpty { return "its promise was never called" }
            if type?.hasSuffix("Subject") == true {
                return lifecycle.deliveries.isEmpty ? "nothing was sent to it" : "nothing more was sent to it"
            }
            return lifecycle.deliveries.isEmpty ? "sent nothing" : "sent nothing more"
        }
    }

    // MARK: Words

    /// The publisher the hop's subscriber was subscribed to, else the subscription it holds.
    private func sourceName(of lifecycle: Lifecycle) -> String {
        lifecycles.name(lifecycle.publisher ?? lifecycle.subscription, otherwise: "an unknown publisher")
    }

    /// How the hop ended: `received .finished at @25`, `was cancelled at @9`.
    private func endPhrase(of lifecycle: Lifecycle) -> String {
        if let completion = lifecycle.completions.first, completion.seq == lifecycle.end {
            return "received \(completion.completion.swiftSpelling) at @\(completion.seq)"
        }
        return lifecycle.end.map { "was cancelled at @\($0)" } ?? "ended"
    }

    /// The subscription the hop's subscriber was handed, else its publisher.
    private func handedName(of lifecycle: Lifecycle) -> String {
        lifecycles.name(lifecycle.subscription ?? lifecycle.publisher, otherwise: "an unknown subscription")
    }

    private func outstandingPhrase(_ demand: TraceDemand) -> String {
        switch demand {
        case .unlimited: return "unlimited demand outstanding"
        case .max(0): return "no demand outstanding"
        case .max(let count): return "demand for \(count) more outstanding"
        }
    }

    private func count(_ values: Int) -> String {
        switch values {
        case 0: return "none"
        case 1: return "1 value"
        default: return "\(values) values"
        }
    }

    /// The call event `begin` starts, as Swift spells it: `receive(_:)`, `request(.max(1))`.
    private func callName(_ begin: UInt64) -> String {
        switch lifecycles.event(begin)?.kind {
        case .subscribe?: return "subscribe(_:)"
        case .receiveSubscription?: return "receive(subscription:)"
        case .request(_, let demand)?: return "request(\(demand.swiftSpelling))"
        case .value?: return "receive(_:)"
        case .completion?: return "receive(completion:)"
        case .cancel?: return "cancel()"
        case .deallocation?, .mark?, nil: return "call"
        }
    }

    private func context(of seq: UInt64) -> String {
        lifecycles.event(seq).map { lifecycles.trace.executionContextName(of: $0) } ?? "an unknown thread"
    }
}
