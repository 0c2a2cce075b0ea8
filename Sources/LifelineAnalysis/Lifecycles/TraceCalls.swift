import LifelineLog

/// The calls of a trace: each `begin` event paired with its `end`, and how the calls nest on
/// each thread.
///
/// A call's `end` is the first later `end` event on the same thread for the same call (same
/// kind, same objects). Calls left open by a damaged log get no `end`, and an `end` with no
/// `begin` is ignored.
public struct TraceCalls: Sendable {
    private let callsByBegin: [UInt64: TraceCall]
    private let beginsByEnd: [UInt64: UInt64]
    private let enclosingBegins: [UInt64: UInt64]
    private let topLevelBegins: [UInt64: [UInt64]]

    /// Pairs the calls of `events`, which must be in sequence order.
    public init(_ events: [TraceEvent]) {
        var callsByBegin: [UInt64: TraceCall] = [:]
        var beginsByEnd: [UInt64: UInt64] = [:]
        var enclosingBegins: [UInt64: UInt64] = [:]
        var topLevelBegins: [UInt64: [UInt64]] = [:]
        var stacks: [UInt64: [TraceEvent]] = [:]

        func close(_ begin: TraceEvent, end: UInt64?, stack: [TraceEvent]) {
            let depth = stack.firstIndex(of: begin) ?? 0
            callsByBegin[begin.seq] = TraceCall(
                begin: begin.seq, end: end, thread: begin.thread,
                parent: depth > 0 ? stack[depth - 1].seq : nil, depth: depth
            )
        }

        for event in events {
            var stack = stacks[event.thread, default: []]
            if let innermost = stack.last { enclosingBegins[event.seq] = innermost.seq }
            switch event.phase {
            case .begin:
                if stack.isEmpty { topLevelBegins[event.thread, default: []].append(event.seq) }
                stack.append(event)
            case .end:
                let key = Self.callKey(event.kind)
                guard let index = stack.lastIndex(where: { Self.callKey($0.kind) == key }) else { break }
                for unclosed in stack[(index + 1)...] { close(unclosed, end: nil, stack: stack) }
                close(stack[index], end: event.seq, stack: stack)
                beginsByEnd[event.seq] = stack[index].seq
                enclosingBegins[event.seq] = index > 0 ? stack[index - 1].seq : nil
                stack.removeSubrange(index...)
            case .instant:
                break
            }
            stacks[event.thread] = stack
        }
        for stack in stacks.values {
            for begin in stack { close(begin, end: nil, stack: stack) }
        }
        self.callsByBegin = callsByBegin
        self.beginsByEnd = beginsByEnd
        self.enclosingBegins = enclosingBegins
        self.topLevelBegins = topLevelBegins
    }

    /// The call whose `begin` or `end` event is `seq`.
    public func call(at seq: UInt64) -> TraceCall? {
        if let call = callsByBegin[seq] { return call }
        return beginsByEnd[seq].flatMap { callsByBegin[$0] }
    }

    /// The innermost call that was running on the event's thread when event `seq` happened,
    /// not counting the call `seq` itself begins or ends.
    public func enclosingCall(of seq: UInt64) -> TraceCall? {
        enclosingBegins[seq].flatMap { callsByBegin[$0] }
    }

    /// Every call that was running on the event's thread when event `seq` happened, innermost
    /// first, not counting the call `seq` itself begins or ends.
    public func enclosingCalls(of seq: UInt64) -> [TraceCall] {
        var calls: [TraceCall] = []
        var next = enclosingCall(of: seq)
        while let call = next {
            calls.append(call)
            next = call.parent.flatMap { callsByBegin[$0] }
        }
        return calls
    }

    /// The last call made from outside any recorded call on `thread` that began before `seq`.
    public func topLevelCall(onThread thread: UInt64, before seq: UInt64) -> TraceCall? {
        guard let begins = topLevelBegins[thread], let begin = begins.last(where: { $0 < seq }) else { return nil }
        return callsByBegin[begin]
    }

    /// What identifies a call for pairing: its kind's name and the objects it was made on. A
    /// request's demand and a value's returned demand differ between `begin` and `end`.
    private static func callKey(_ kind: TraceEvent.Kind) -> [String] {
        switch kind {
        case .subscribe, .receiveSubscription:
            return [kind.name] + kind.objects.map(\.description)
        case .request, .value, .completion, .cancel:
            return [kind.name, kind.objects[0].description]
        case .deallocation, .mark:
            return [kind.name]
        }
    }
}
