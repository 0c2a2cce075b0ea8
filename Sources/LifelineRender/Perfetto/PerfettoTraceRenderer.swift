import LifelineLog

/// Writes a trace in the Chrome trace event format, which Perfetto (ui.perfetto.dev) and
/// `chrome://tracing` open.
///
/// - Each kernel thread is a track, named by `thread_name` metadata (`main` first).
/// - Every call (subscribe, receive(subscription:), request, receive(value),
///   receive(completion:), cancel) is a slice on its thread's track, nested as the calls
///   were. Values and requests are slices too, not instants: Perfetto binds flow arrows to
///   slices.
/// - Each subscription's lifetime is an async slice, from its subscriber's subscribe call to
///   its completion, cancel or deallocation, whichever comes first; one still open when
///   recording stopped ends at the last event.
/// - Flow arrows lead from each value to the value it became at the next hop downstream:
///   the delivery nested inside it, or, across a thread hop (`receive(on:)`), the next
///   delivery in order when both hops delivered the same number of values. Otherwise no
///   arrow is drawn rather than a guessed one.
/// - Deallocations are thread-scoped instant events and marks are global ones.
///
/// The output has one event per line, in event order, and is the same bytes for the same
/// trace. Names (of slices, threads, marks) show at most ``DisplayText/nameLimit`` characters
/// of program text, values and errors in the arguments at most ``TraceText/limit``.
public enum PerfettoTraceRenderer {
    /// Renders `trace` as Chrome trace event JSON.
    ///
    /// - Parameter trace: The recorded trace.
    /// - Returns: The JSON object, ending with a newline.
    public static func render(_ trace: Trace) -> String {
        String(decoding: renderUTF8(trace), as: UTF8.self)
    }

    /// Renders `trace` as Chrome trace event JSON in UTF-8 bytes, as ``render(_:)`` does
    /// without making a `String` of a document that can run to hundreds of megabytes.
    public static func renderUTF8(_ trace: Trace) -> [UInt8] {
        var document: [UInt8] = []
        render(trace) { document.append(contentsOf: $0) }
        return document
    }

    /// Renders `trace` as Chrome trace event JSON in UTF-8, handed to `emit` a megabyte at a
    /// time, in order: the bytes ``renderUTF8(_:)`` returns, never held whole.
    public static func render(_ trace: Trace, to emit: (UnsafeRawBufferPointer) -> Void) {
        let model = SequenceModel(trace: trace, diagnoses: [], folding: false)
        var writer = PerfettoEventWriter(processID: trace.header.processID)
        writer.metadata("process_name", thread: 0, args: ["name": .text(clean(trace.header.processName))])
        let tids = trace.threads.keys.sorted { lhs, rhs in
            let left = trace.threads[lhs]!.name == "main", right = trace.threads[rhs]!.name == "main"
            return left != right ? left : lhs < rhs
        }
        for (index, tid) in tids.enumerated() {
            writer.metadata("thread_name", thread: tid, args: ["name": .text(clean(trace.threads[tid]!.name))])
            writer.metadata("thread_sort_index", thread: tid, args: ["sort_index": .number(UInt64(index))])
        }

        // A lane's name is worked out once, not at every call it takes part in.
        let laneNames = model.lanes.map(\.oneLineName)
        // Names every call repeats are quoted once; an argument holds at most TraceText.limit
        // characters of one.
        let quotedLaneNames = laneNames.map { PerfettoEventWriter.quoted(TraceText.shortened($0)) }
        let quotedContexts = model.contexts.map { PerfettoEventWriter.quoted(clean($0.name)) }
        // What is kept per lane is kept in arrays by lane, not hashed at every call.
        var sliceNames = [[(call: String, name: [UInt8])]](repeating: [], count: model.lanes.count)
        let times = fillTimes(model.steps)
        let flows = PerfettoFlows(model: model)
        var subscriptionOf = [Int?](repeating: nil, count: model.lanes.count)
        var subscribedAt = [(time: UInt64, thread: UInt64)?](repeating: nil, count: model.lanes.count)
        var lifetimes = [(name: String, thread: UInt64)?](repeating: nil, count: model.lanes.count)
        var ended = [Bool](repeating: false, count: model.lanes.count)

        func endLifetime(_ lane: Int, at time: UInt64, thread: UInt64, reason: String) {
            guard let lifetime = lifetimes[lane], !ended[lane] else { return }
            ended[lane] = true
            writer.event(phase: "e", name: lifetime.name, category: "subscription", time: time, thread: lifetime.thread,
                         id: model.lanes[lane].object.id.rawValue, args: ["ended by": .text(reason)])
        }

        // Two lists of arguments serve every row, emptied and refilled: none is allocated per event.
        var args: PerfettoEventWriter.Arguments = [:], endArgs: PerfettoEventWriter.Arguments = [:]
        for (index, step) in model.steps.enumerated() {
            writer.flushIfFull(to: emit)
            let time = times[index], thread = step.thread ?? 0
            args.removeAll()
            if let seq = step.seq { args["seq"] = .number(seq) }
            if let context = step.context { args["on"] = .quoted(quotedContexts[context]) }
            switch step.content {
            case .call(let caller, let callee, let kind, _):
                if let caller { args["from"] = .quoted(quotedLaneNames[caller]) }
                args["to"] = .quoted(quotedLaneNames[callee])
                switch kind {
                case .value(let value?): args["value"] = .text(TraceText.shortened(value))
                case .request(let demand): args["demand"] = .text(CallKind.name(of: demand))
                case .completion(let completion): args["completion"] = .text(TraceText.shortened(CallKind.completion(completion).fullLabel))
                default: break
                }
                let call = callName(kind)
                let name = sliceNames[callee].first { $0.call == call }?.name ?? {
                    let name = PerfettoEventWriter.quoted(clean("\(call) \(laneNames[callee])"))
                    sliceNames[callee].append((call, name))
                    return name
                }()
                writer.event(phase: "B", name: .quoted(name), category: kindCategory(kind),
                             time: time, thread: thread, args: args)
                for id in flows.outgoing[index, default: []] {
                    writer.event(phase: "s", name: "value", category: "flow", time: time, thread: thread, id: id)
                }
                for id in flows.incoming[index, default: []] {
                    writer.event(phase: "f", name: "value", category: "flow", time: time, thread: thread, id: id, bindToEnclosing: true)
                }
                switch kind {
                case .subscribe:
                    if let caller { subscribedAt[caller] = (time, thread) }
                case .receiveSubscription:
                    if let caller {
                        subscriptionOf[callee] = caller
                        if lifetimes[caller] == nil {
                            let start = subscribedAt[callee] ?? (time, thread)
                            let name = "\(laneNames[caller]) → \(laneNames[callee])"
                            lifetimes[caller] = (clean(name), start.thread)
                            writer.event(phase: "b", name: clean(name), category: "subscription", time: start.time,
                                         thread: start.thread, id: model.lanes[caller].object.id.rawValue)
                        }
                    }
                case .completion:
                    if let subscription = subscriptionOf[callee] {
                        endLifetime(subscription, at: time, thread: thread, reason: "receive(completion:)")
                    }
                case .cancel:
                    endLifetime(callee, at: time, thread: thread, reason: "cancel()")
                default:
                    break
                }
            case .callReturn(_, _, let kind, _, let demand):
                endArgs.removeAll()
                if let demand { endArgs["returned demand"] = .text(CallKind.name(of: demand)) }
                if step.seq == nil { endArgs["closed"] = .text("never returned; closed when an enclosing call returned") }
                writer.event(phase: "E", name: "", category: kindCategory(kind), time: time, thread: thread, args: endArgs)
            case .deallocation(let lane, let evidence):
                switch evidence {
                case .exact: args["evidence"] = .text("exact")
                case .observed(let aliveAt): args["evidence"] = .text("found dead; alive at @\(aliveAt)")
                }
                writer.event(phase: "i", name: clean("deallocated \(laneNames[lane])"), category: "deallocation",
                             time: time, thread: thread, scope: "t", args: args)
                endLifetime(lane, at: time, thread: thread, reason: "deallocation")
            case .mark(let label):
                writer.event(phase: "i", name: clean(label), category: "mark", time: time, thread: thread, scope: "g", args: args)
            case .fold, .note, .logEnd, .wait:
                break
            }
        }
        let last = times.last ?? 0
        for (lane, lifetime) in lifetimes.enumerated() {
            if let lifetime { endLifetime(lane, at: last, thread: lifetime.thread, reason: "still open when recording stopped") }
        }
        writer.finish(to: emit)
    }

    /// Each row's time; a row without one (a call closed because an enclosing call
    /// returned) takes the time of the next row that has one.
    private static func fillTimes(_ steps: [SequenceStep]) -> [UInt64] {
        var times = [UInt64](repeating: 0, count: steps.count)
        var next = steps.last(where: { $0.time != nil })?.time ?? 0
        for index in steps.indices.reversed() {
            if let time = steps[index].time { next = time }
            times[index] = next
        }
        return times
    }

    /// `text` as a name: cleaned and shortened to ``DisplayText/nameLimit`` characters.
    private static func clean(_ text: String) -> String {
        DisplayText(text, limit: DisplayText.nameLimit).short
    }

    /// A call slice's name: the call and the lane it was made on.
    private static func callName(_ kind: CallKind) -> String {
        switch kind {
        case .value: return "receive(value)"
        case .completion: return "receive(completion:)"
        default: return kind.fullLabel
        }
    }

    private static func kindCategory(_ kind: CallKind) -> StaticString {
        switch kind {
        case .subscribe: return "subscribe"
        case .receiveSubscription: return "receive_subscription"
        case .request: return "request"
        case .value: return "value"
        case .completion: return "completion"
        case .cancel: return "cancel"
        }
    }
}
