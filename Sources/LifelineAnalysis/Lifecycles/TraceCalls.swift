import LifelineLog

/// The calls of a trace: each `begin` event paired with its `end`, and how the calls nest on
/// each thread.
///
/// A call's `end` is the first later `end` event on the same thread for the same call (same
/// kind, same objects). Calls left open by a damaged log get no `end`, and an `end` with no
/// `begin` is ignored.
public struct TraceCalls: Sendable {
    private let positions: EventPositions
    /// The call each event begins, by the event's position.
    private let callsByBegin: [TraceCall?]
    /// The position of the `begin` of the call each event ends, or -1.
    private let beginsByEnd: [Int32]
    /// The position of the `begin` of the innermost call running around each event, or -1.
    private let enclosingBegins: [Int32]
    private let topLevelBegins: [UInt64: [UInt64]]

    /// Pairs the calls of `events`, which must be in sequence order.
    public init(_ events: [TraceEvent]) {
        var callsByBegin = [TraceCall?](repeating: nil, count: events.count)
        var beginsByEnd = [Int32](repeating: -1, count: events.count)
        var enclosingBegins = [Int32](repeating: -1, count: events.count)
        var topLevelBegins: [UInt64: [UInt64]] = [:]
        // Each thread's open calls (their begins' positions), innermost last, mutated in place.
        var stackOfThread: [UInt64: Int] = [:]
        var stacks: [[(position: Int, key: CallKey)]] = []

        func close(_ begin: Int, at depth: Int, end: UInt64?, stack: [(position: Int, key: CallKey)]) {
            callsByBegin[begin] = TraceCall(
                begin: events[begin].seq, end: end, thread: events[begin].thread,
                parent: depth > 0 ? events[stack[depth - 1].position].seq : nil, depth: depth
            )
        }

        var lastThread: UInt64?
        var stackIndex = 0
        for (position, event) in events.enumerated() {
            if event.thread != lastThread {
                if let index = stackOfThread[event.thread] {
                    stackIndex = index
                } else {
                    stackIndex = stacks.count
                    stackOfThread[event.thread] = stackIndex
                    stacks.append([])
                }
                lastThread = event.thread
            }
            if let innermost = stacks[stackIndex].last { enclosingBegins[position] = Int32(innermost.position) }
            switch event.phase {
            case .begin:
                if stacks[stackIndex].isEmpty { topLevelBegins[event.thread, default: []].append(event.seq) }
                stacks[stackIndex].append((position, CallKey(event.kind)))
            case .end:
                let key = CallKey(event.kind)
                let stack = stacks[stackIndex]
                guard let index = stack.lastIndex(where: { $0.key == key }) else { break }
                for depth in (index + 1)..<stack.count { close(stack[depth].position, at: depth, end: nil, stack: stack) }
                close(stack[index].position, at: index, end: event.seq, stack: stack)
                beginsByEnd[position] = Int32(stack[index].position)
                enclosingBegins[position] = index > 0 ? Int32(stack[index - 1].position) : -1
                stacks[stackIndex].removeSubrange(index...)
            case .instant:
                break
            }
        }
        for stack in stacks {
            for depth in stack.indices { close(stack[depth].position, at: depth, end: nil, stack: stack) }
        }
        self.positions = EventPositions(events)
        self.callsByBegin = callsByBegin
        self.beginsByEnd = beginsByEnd
        self.enclosingBegins = enclosingBegins
        self.topLevelBegins = topLevelBegins
    }

    /// The call whose `begin` or `end` event is `seq`.
    public func call(at seq: UInt64) -> TraceCall? {
        guard let position = positions.position(of: seq) else { return nil }
        if let call = callsByBegin[position] { return call }
        let begin = beginsByEnd[position]
        return begin >= 0 ? callsByBegin[Int(begin)] : nil
    }

    /// The innermost call that was running on the event's thread when event `seq` happened,
    /// not counting the call `seq` itself begins or ends.
    public func enclosingCall(of seq: UInt64) -> TraceCall? {
        guard let position = positions.position(of: seq) else { return nil }
        let begin = enclosingBegins[position]
        return begin >= 0 ? callsByBegin[Int(begin)] : nil
    }

    /// Every call that was running on the event's thread when event `seq` happened, innermost
    /// first, not counting the call `seq` itself begins or ends.
    public func enclosingCalls(of seq: UInt64) -> [TraceCall] {
        var calls: [TraceCall] = []
        var next = enclosingCall(of: seq)
        while let call = next {
            calls.append(call)
            next = call.parent.flatMap { positions.position(of: $0) }.flatMap { callsByBegin[$0] }
        }
        return calls
    }

    /// The innermost of the calls ``enclosingCalls(of:)`` lists that `matches`, found without
    /// making the list: lifecycles are rebuilt asking this at every subscribe.
    func firstEnclosingCall(of seq: UInt64, where matches: (TraceCall) -> Bool) -> TraceCall? {
        var next = enclosingCall(of: seq)
        while let call = next {
            if matches(call) { return call }
            next = call.parent.flatMap { positions.position(of: $0) }.flatMap { callsByBegin[$0] }
        }
        return nil
    }

    /// The last call made from outside any recorded call on `thread` that began before `seq`.
    public func topLevelCall(onThread thread: UInt64, before seq: UInt64) -> TraceCall? {
        guard let begins = topLevelBegins[thread] else { return nil }
        // The begins are in sequence order: find the first at or after `seq`.
        var low = 0, high = begins.count
        while low < high {
            let middle = (low + high) / 2
            if begins[middle] < seq { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? positions.position(of: begins[low - 1]).flatMap { callsByBegin[$0] } : nil
    }

    /// What identifies a call for pairing: its kind and the objects it was made on. A
    /// request's demand and a value's returned demand differ between `begin` and `end`.
    private struct CallKey: Equatable {
        let kind: String
        let first: TraceObjectID?
        let second: TraceObjectID?

        init(_ kind: TraceEvent.Kind) {
            self.kind = kind.name
            switch kind {
            case .subscribe(let publisher, let subscriber):
                (first, second) = (publisher, subscriber)
            case .receiveSubscription(let subscriber, let subscription):
                (first, second) = (subscriber, subscription)
            case .request(let subscription, _), .cancel(let subscription):
                (first, second) = (subscription, nil)
            case .value(let subscriber, _, _), .completion(let subscriber, _):
                (first, second) = (subscriber, nil)
            case .deallocation, .mark:
                (first, second) = (nil, nil)
            }
        }
    }
}
