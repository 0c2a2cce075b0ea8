import LifelineAnalysis
import LifelineLog

/// Renders a trace as a plain-text timeline: who called what on whom, on which thread or
/// queue, with the demand, one line per call, indented by nesting.
///
/// Each call is one line, written where it began; what it returned (the demand a value
/// returned) is shown on the same line. Deallocations, marks and hang records (the moments
/// the recorder saw the program hanging) are lines of their own.
/// Output is deterministic: it depends only on the trace.
public struct TimelineRenderer: Sendable {
    /// Whether to show each event's time since the start of the recording. Times change
    /// from run to run; leave them out for output that is compared or committed.
    public var showsTimes: Bool
    /// Whether the heading lists each object's full type name. Generic arguments make
    /// those run to thousands of characters, so by default they are elided (`Sink<…>`); the
    /// log always keeps the full name.
    public var showsFullTypes: Bool

    /// Creates a renderer.
    public init(showsTimes: Bool = true, showsFullTypes: Bool = false) {
        self.showsTimes = showsTimes
        self.showsFullTypes = showsFullTypes
    }

    /// The timeline of `trace`.
    public func render(_ trace: Trace) -> String {
        let returns = Self.returnedDemands(trace.events)
        var depth: [UInt64: Int] = [:]
        let contextWidth = trace.events.map { Self.oneLine(trace.executionContextName(of: $0)).count }.max() ?? 0
        var lines = [heading(trace, contextWidth: contextWidth)]
        // Each hang record is written after the event it follows, before the next.
        var hangs = trace.hangs[...]
        for (index, event) in trace.events.enumerated() {
            while let hang = hangs.first, hang.seq < event.seq {
                lines.append(hangLine(hang, contextWidth: contextWidth))
                hangs.removeFirst()
            }
            if event.phase == .end {
                // A damaged log can end more calls than it began (a begin line lost to
                // unwritten bytes): the thread's nesting never goes below the left margin.
                depth[event.thread] = max((depth[event.thread] ?? 0) - 1, 0)
                continue
            }
            let level = depth[event.thread, default: 0]
            if event.phase == .begin { depth[event.thread] = level + 1 }
            var line = pad("@\(event.seq)", to: 7, left: true) + "  "
            if showsTimes { line += pad(Self.milliseconds(event.time), to: 12, left: true) + "  " }
            line += pad(Self.oneLine(trace.executionContextName(of: event)), to: contextWidth) + "  "
            line += String(repeating: "  ", count: level) + describe(event, in: trace, returned: returns[index])
            lines.append(line)
        }
        lines += hangs.map { hangLine($0, contextWidth: contextWidth) }
        lines.append(contentsOf: trace.damage.map { "note: \($0)" })
        return lines.joined(separator: "\n") + "\n"
    }

    /// `   hang    1212.345           ‖ seen hanging: no event for 1200.000 ms (the watchdog's
    /// hang record)`: a moment the recorder saw the program hanging, in the event column.
    private func hangLine(_ hang: TraceHang, contextWidth: Int) -> String {
        var line = pad("hang", to: 7, left: true) + "  "
        if showsTimes { line += pad(Self.milliseconds(hang.time), to: 12, left: true) + "  " }
        return line + pad("", to: contextWidth) + "  ‖ seen hanging: no event for \(Self.milliseconds(hang.idle)) ms ("
            + WaitsOnRule.source(of: hang) + ")"
    }

    private func heading(_ trace: Trace, contextWidth: Int) -> String {
        var text = "Lifeline timeline of \(Self.oneLine(trace.header.processName)): \(trace.events.count) events, \(trace.objects.count) objects\n"
        for object in trace.objects.values.sorted(by: { $0.id < $1.id }) {
            text += "  \(Self.oneLine(object.displayName)) (\(object.role.rawValue)) "
                + Self.oneLine(showsFullTypes ? object.typeName : Self.elidingGenericArguments(object.typeName))
            if let origin = object.originPhrase { text += ", \(Self.oneLine(origin))" }
            text += "\n"
        }
        text += "\n" + pad("event", to: 7, left: true) + "  "
        if showsTimes { text += pad("time (ms)", to: 12, left: true) + "  " }
        return text + pad("thread", to: contextWidth) + "  call"
    }

    private func describe(_ event: TraceEvent, in trace: Trace, returned: TraceDemand?) -> String {
        func name(_ id: TraceObjectID) -> String { Self.oneLine(trace.object(id)?.placedName ?? id.description) }
        switch event.kind {
        case .subscribe(let publisher, let subscriber):
            return "\(name(publisher)).subscribe(\(name(subscriber)))"
        case .receiveSubscription(let subscriber, let subscription):
            return "\(name(subscriber)).receive(subscription: \(name(subscription)))"
        case .request(let subscription, let demand):
            let place = trace.requestLocation(of: event).map { ": requested in \(Self.oneLine($0.description))" } ?? ""
            return "\(name(subscription)).request(\(demand))\(place)"
        case .value(let subscriber, _, let value):
            let shown = value.map { "\"\(Self.oneLine($0))\"" } ?? "value"
            return "\(name(subscriber)).receive(\(shown))" + (returned.map { " → \($0)" } ?? "")
        case .completion(let subscriber, .finished):
            return "\(name(subscriber)).receive(completion: .finished)"
        case .completion(let subscriber, .failure(let error)):
            return "\(name(subscriber)).receive(completion: .failure(\(Self.oneLine(error))))"
        case .cancel(let subscription):
            let cause = trace.cancelSite(of: event)?.cancelPhrase.map { ": \(Self.oneLine($0))" } ?? ""
            return "\(name(subscription)).cancel()\(cause)"
        case .deallocation(let object, .exact):
            return "✕ \(name(object)) deallocated"
        case .deallocation(let object, .observed(let aliveAtSeq)):
            return "✕ \(name(object)) found deallocated (alive at @\(aliveAtSeq))"
        case .mark(let label):
            return "— mark: \(Self.oneLine(label))"
        }
    }

    /// For each value event that begins a call, the demand its matching end returned.
    private static func returnedDemands(_ events: [TraceEvent]) -> [Int: TraceDemand] {
        var open: [UInt64: [Int]] = [:]
        var returns: [Int: TraceDemand] = [:]
        for (index, event) in events.enumerated() {
            switch event.phase {
            case .begin: open[event.thread, default: []].append(index)
            case .end:
                guard let begin = open[event.thread]?.popLast() else { continue }
                if case .value(_, let demand?, _) = event.kind { returns[begin] = demand }
            case .instant: continue
            }
        }
        return returns
    }

    private static func milliseconds(_ nanoseconds: UInt64) -> String {
        let micros = nanoseconds / 1_000
        let fraction = String(micros % 1_000)
        return "\(micros / 1_000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// `OpenCombine.Publishers.ReceiveOn<…>.(private).Inner<…>`: the type's path with every
    /// generic argument list written `<…>`, cut to 120 characters.
    static func elidingGenericArguments(_ name: String) -> String {
        var result = ""
        var depth = 0
        for character in name {
            switch character {
            case "<":
                if depth == 0 { result += "<…>" }
                depth += 1
            case ">":
                depth = max(depth - 1, 0)
            default:
                if depth == 0 { result.append(character) }
            }
        }
        return result.count > 120 ? String(result.prefix(119)) + "…" : result
    }

    /// Program text on one line, escaped and capped (``TraceText``): a label must not forge
    /// a line of the timeline or reach the terminal as an escape sequence.
    private static func oneLine(_ text: String) -> String {
        TraceText.printable(text)
    }

    private func pad(_ text: String, to width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? padding + text : text + padding
    }
}
