/// Turns headers, declarations and events into the log's JSON lines.
///
/// Every line ends in `\n`. The layout of each line is documented in docs/LogFormat.md; the
/// reader (``TraceReader``) accepts exactly what this writes.
public enum TraceLineEncoder {
    /// Hands `body` the encoded line for `event`, built in temporary memory.
    public static func withLine<Result>(
        for event: TraceEvent, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withLine(capacity: capacity(for: event), build: { encode(event, into: &$0) }, body)
    }

    /// Hands `body` the encoded declaration line for `object`, its type written out (the only
    /// form before log format version 8).
    public static func withLine<Result>(
        for object: TraceObject, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let capacity = 160 + TraceLineBuilder.capacity(forString: object.typeName)
            + TraceLineBuilder.capacity(forString: object.shortTypeName) + capacity(forHop: object.label, object.sourceLocation)
        return try withLine(capacity: capacity, build: { line in
            line.raw("{\"kind\":\"object\",\"id\":")
            line.number(object.id.rawValue)
            encodeType(role: object.role, typeName: object.typeName, shortTypeName: object.shortTypeName, into: &line)
            encodeHop(label: object.label, sourceLocation: object.sourceLocation, into: &line)
            encodeSiteAndJoined(of: object, into: &line)
            line.raw(object.lifetimeTracked ? ",\"lifetime\":true}\n" : ",\"lifetime\":false}\n")
        }, body)
    }

    /// Hands `body` the encoded declaration line for `object`, whose type, role and lifetime
    /// tracking the line of `type` declares (log format version 8 on), and so its label and
    /// place when the type names a hop (then they must be the object's).
    package static func withLine<Result>(
        for object: TraceObject, type: TraceObjectType, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let ownHop = !type.namesHop
        return try withLine(capacity: 96 + (ownHop ? capacity(forHop: object.label, object.sourceLocation) : 0), build: { line in
            line.raw("{\"kind\":\"object\",\"id\":")
            line.number(object.id.rawValue)
            line.raw(",\"type\":")
            line.number(type.id)
            if ownHop { encodeHop(label: object.label, sourceLocation: object.sourceLocation, into: &line) }
            encodeSiteAndJoined(of: object, into: &line)
            line.raw("}\n")
        }, body)
    }

    /// Hands `body` the encoded `type` line for `type` (log format version 8 on).
    package static func withLine<Result>(
        for type: TraceObjectType, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let capacity = 128 + TraceLineBuilder.capacity(forString: type.typeName)
            + TraceLineBuilder.capacity(forString: type.shortTypeName) + capacity(forHop: type.label, type.sourceLocation)
        return try withLine(capacity: capacity, build: { line in
            line.raw("{\"kind\":\"type\",\"id\":")
            line.number(type.id)
            encodeType(role: type.role, typeName: type.typeName, shortTypeName: type.shortTypeName, into: &line)
            encodeHop(label: type.label, sourceLocation: type.sourceLocation, into: &line)
            line.raw(type.lifetimeTracked ? ",\"lifetime\":true}\n" : ",\"lifetime\":false}\n")
        }, body)
    }

    /// Writes `,"role":…,"type":…,"short":…`: what a type line declares, and what an object line
    /// that writes its type out holds.
    private static func encodeType(
        role: TraceObjectRole, typeName: String, shortTypeName: String, into line: inout TraceLineBuilder
    ) {
        switch role {
        case .publisher: line.raw(",\"role\":\"publisher\",\"type\":")
        case .subscription: line.raw(",\"role\":\"subscription\",\"type\":")
        case .subscriber: line.raw(",\"role\":\"subscriber\",\"type\":")
        case .object: line.raw(",\"role\":\"object\",\"type\":")
        }
        line.string(typeName)
        line.raw(",\"short\":")
        line.string(shortTypeName)
    }

    /// The most bytes a hop's `label`, `source` and `function` take.
    private static func capacity(forHop label: String?, _ sourceLocation: TraceSourceLocation?) -> Int {
        let source = sourceLocation?.fileAndLineAsRecorded, function = sourceLocation?.function
        return 64 + [label ?? "", source ?? "", function ?? ""].reduce(0) { $0 + TraceLineBuilder.capacity(forString: $1) }
    }

    /// Writes the `label`, `source` and `function` of a `.lifeline` hop, each when present.
    private static func encodeHop(label: String?, sourceLocation: TraceSourceLocation?, into line: inout TraceLineBuilder) {
        if let label {
            line.raw(",\"label\":")
            line.string(label)
        }
        if let source = sourceLocation?.fileAndLineAsRecorded {
            line.raw(",\"source\":")
            line.string(source)
        }
        if let function = sourceLocation?.function {
            line.raw(",\"function\":")
            line.string(function)
        }
    }

    /// Writes an object line's `site` and `joined`, each when present.
    private static func encodeSiteAndJoined(of object: TraceObject, into line: inout TraceLineBuilder) {
        if let site = object.callSite {
            line.raw(",\"site\":")
            line.number(site)
        }
        if object.joinedMidStream { line.raw(",\"joined\":true") }
    }

    /// Hands `body` the encoded line for `snapshot`. Its nodes must be declared by object lines
    /// of their own.
    public static func withLine<Result>(
        for snapshot: TraceSnapshot, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let capacity = 160 + TraceLineBuilder.capacity(forString: snapshot.label)
            + capacity(forNodes: snapshot.nodes, edges: snapshot.edges) + 48 * snapshot.lastChecked.count
        return try withLine(capacity: capacity, build: { line in
            encodeSnapshotHeader(index: snapshot.index, seq: snapshot.seq, label: snapshot.label, reason: snapshot.reason, into: &line)
            line.raw(",\"nodes\":[")
            encode(snapshot.nodes, into: &line)
            line.raw("],\"edges\":[")
            encode(snapshot.edges, into: &line)
            line.raw("]")
            if !snapshot.isComplete {
                line.raw(",\"last_checked\":[")
                for (position, entry) in snapshot.lastChecked.sorted(by: { $0.key < $1.key }).enumerated() {
                    line.raw(position == 0 ? "{\"id\":" : ",{\"id\":")
                    line.number(entry.key.rawValue)
                    line.raw(",\"seq\":")
                    line.number(entry.value)
                    line.raw("}")
                }
                line.raw("]")
            }
            line.raw("}\n")
        }, body)
    }

    /// Hands `body` the encoded line for a resolved call site.
    public static func withLine<Result>(
        for site: TraceCallSite, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let location = site.location
        let capacity = 128 + TraceLineBuilder.capacity(forString: location?.file ?? "")
            + TraceLineBuilder.capacity(forString: location?.function ?? "")
        return try withLine(capacity: capacity, build: { line in
            line.raw("{\"kind\":\"site\",\"id\":")
            line.number(site.id)
            if let function = location?.function {
                line.raw(",\"function\":")
                line.string(function)
            }
            if let file = location?.file {
                line.raw(",\"file\":")
                line.string(file)
            }
            if let number = location?.line {
                line.raw(",\"line\":")
                line.number(number)
            }
            if let cause = site.cancelCause {
                line.raw(",\"cancel\":")
                line.string(cause.rawValue)
            }
            line.raw("}\n")
        }, body)
    }

    /// Hands `body` the encoded `hang` line for `hang` (log format version 10 on).
    public static func withLine<Result>(
        for hang: TraceHang, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withLine(capacity: 128, build: { line in
            line.raw("{\"kind\":\"hang\",\"at\":")
            line.number(hang.seq)
            line.raw(",\"t\":")
            line.number(hang.time)
            line.raw(",\"idle\":")
            line.number(hang.idle)
            switch hang.cause {
            case .watchdog: line.raw(",\"cause\":\"watchdog\"}\n")
            case .signal: line.raw(",\"cause\":\"signal\"}\n")
            case .timeout: line.raw(",\"cause\":\"timeout\"}\n")
            }
        }, body)
    }

    /// Hands `body` the encoded declaration line for `thread`.
    public static func withLine<Result>(
        for thread: TraceThread, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withLine(capacity: 64 + TraceLineBuilder.capacity(forString: thread.name), build: { line in
            line.raw("{\"kind\":\"thread\",\"tid\":")
            line.number(thread.tid)
            line.raw(",\"name\":")
            line.string(thread.name)
            line.raw("}\n")
        }, body)
    }

    /// Hands `body` the encoded declaration line for `queue`.
    public static func withLine<Result>(
        for queue: TraceQueue, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withLine(capacity: 64 + TraceLineBuilder.capacity(forString: queue.label), build: { line in
            line.raw("{\"kind\":\"queue\",\"id\":")
            line.number(UInt64(queue.id))
            line.raw(",\"label\":")
            line.string(queue.label)
            line.raw("}\n")
        }, body)
    }

    /// Hands `body` the encoded header line.
    public static func withLine<Result>(
        for header: TraceHeader, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        let capacity = 384 + TraceLineBuilder.capacity(forString: header.processName)
            + TraceLineBuilder.capacity(forString: header.startedAt)
            + TraceLineBuilder.capacity(forString: header.clockSource)
        return try withLine(capacity: capacity, build: { line in
            line.raw("{\"format\":\"lifeline-trace\",\"version\":")
            line.number(header.version)
            line.raw(",\"process\":{\"pid\":")
            line.number(header.processID)
            line.raw(",\"name\":")
            line.string(header.processName)
            line.raw("},\"started\":")
            line.string(header.startedAt)
            line.raw(",\"clock\":{\"source\":")
            line.string(header.clockSource)
            line.raw(",\"unit\":\"ns\",\"origin\":")
            line.number(header.clockOrigin)
            line.raw("},\"values\":")
            if let limit = header.valueDescriptionLimit {
                line.raw("{\"max_length\":")
                line.number(limit)
                line.raw("}")
            } else {
                line.raw("null")
            }
            if header.format == .binary {
                if let ticks = header.ticks {
                    line.raw(",\"ticks\":{\"source\":\"tsc\",\"tsc\":")
                    line.number(ticks.tsc)
                    line.raw(",\"t\":")
                    line.number(ticks.time)
                    line.raw(",\"per_second\":")
                    line.number(ticks.perSecond)
                    line.raw("}")
                } else {
                    line.raw(",\"ticks\":null")
                }
            }
            line.raw("}\n")
        }, body)
    }

    /// Hands `body` a version 6 log's `clock` line: the time-stamp counter read `tsc` at event
    /// time `time`.
    public static func withClockLine<Result>(
        tsc: UInt64, time: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withLine(capacity: 96, build: { line in
            line.raw("{\"kind\":\"clock\",\"tsc\":")
            line.number(tsc)
            line.raw(",\"t\":")
            line.number(time)
            line.raw("}\n")
        }, body)
    }

    /// Hands `body` the line that closes a log cleanly.
    public static func withEndLine<Result>(
        events: UInt64, dropped: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withLine(capacity: 96, build: { line in
            line.raw("{\"kind\":\"end\",\"events\":")
            line.number(events)
            line.raw(",\"dropped\":")
            line.number(dropped)
            line.raw("}\n")
        }, body)
    }

    /// `{"kind":"snapshot","snapshot":…,"at":…,"label":…,"reason":…`: how a snapshot line and a
    /// delta line begin.
    static func encodeSnapshotHeader(
        index: Int, seq: UInt64, label: String, reason: TraceSnapshot.Reason, into line: inout TraceLineBuilder
    ) {
        line.raw("{\"kind\":\"snapshot\",\"snapshot\":")
        line.number(index)
        line.raw(",\"at\":")
        line.number(seq)
        line.raw(",\"label\":")
        line.string(label)
        line.raw(",\"reason\":")
        line.string(reason.rawValue)
    }

    /// Writes snapshot nodes as the members of a JSON array.
    static func encode(_ nodes: [TraceSnapshot.Node], into line: inout TraceLineBuilder) {
        for (position, node) in nodes.enumerated() {
            line.raw(position == 0 ? "{\"id\":" : ",{\"id\":")
            line.number(node.id.rawValue)
            line.raw(",\"kind\":")
            line.string(node.kind.rawValue)
            if let name = node.name {
                line.raw(",\"name\":")
                line.string(name)
            }
            if let counts = node.retainCounts {
                line.raw(",\"strong\":")
                line.number(counts.strong)
                line.raw(",\"weak\":")
                line.number(counts.weak)
                line.raw(",\"unowned\":")
                line.number(counts.unowned)
                if counts.recorderWeak > 0 {
                    line.raw(",\"recorder_weak\":")
                    line.number(counts.recorderWeak)
                }
                if counts.recorderUnowned > 0 {
                    line.raw(",\"recorder_unowned\":")
                    line.number(counts.recorderUnowned)
                }
            }
            if node.opaque { line.raw(",\"opaque\":true") }
            line.raw(node.alive ? ",\"alive\":true}" : ",\"alive\":false}")
        }
    }

    /// Writes snapshot edges as the members of a JSON array.
    static func encode(_ edges: [TraceSnapshot.Edge], into line: inout TraceLineBuilder) {
        for (position, edge) in edges.enumerated() {
            line.raw(position == 0 ? "{\"from\":" : ",{\"from\":")
            line.number(edge.from.rawValue)
            line.raw(",\"to\":")
            line.number(edge.to.rawValue)
            line.raw(",\"field\":")
            line.string(edge.field)
            line.raw(",\"ownership\":")
            line.string(edge.ownership.rawValue)
            if let site = edge.closureSite {
                line.raw(",\"closure\":")
                line.number(site)
            }
            line.raw("}")
        }
    }

    /// The most bytes `nodes` and `edges` take in a line.
    static func capacity(forNodes nodes: [TraceSnapshot.Node], edges: [TraceSnapshot.Edge]) -> Int {
        var capacity = 0
        for node in nodes {
            capacity += 200 + TraceLineBuilder.capacity(forString: node.name ?? "")
        }
        for edge in edges {
            capacity += 128 + TraceLineBuilder.capacity(forString: edge.field)
        }
        return capacity
    }

    /// Hands `body` the line `build` writes, in temporary memory of `capacity` bytes.
    static func withLine<Result>(
        capacity: Int, build: (inout TraceLineBuilder) -> Void,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        try withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 1) { buffer in
            var line = TraceLineBuilder(buffer: buffer)
            build(&line)
            return try body(line.bytes)
        }
    }

    /// The most bytes `event`'s line can take.
    static func capacity(for event: borrowing TraceEvent) -> Int {
        switch event.kind {
        case .value(_, _, let value?): return 256 + TraceLineBuilder.capacity(forString: value)
        case .completion(_, .failure(let error)): return 256 + TraceLineBuilder.capacity(forString: error)
        case .mark(let label): return 256 + TraceLineBuilder.capacity(forString: label)
        default: return 256
        }
    }

    static func encode(_ event: borrowing TraceEvent, into line: inout TraceLineBuilder) {
        line.raw("{\"seq\":")
        line.number(event.seq)
        line.raw(",\"t\":")
        line.number(event.time)
        line.raw(",\"tid\":")
        line.number(event.thread)
        if let queue = event.queue {
            line.raw(",\"queue\":")
            line.number(UInt64(queue))
        }
        line.raw(",\"phase\":\"")
        switch event.phase {
        case .begin: line.raw("begin")
        case .end: line.raw("end")
        case .instant: line.raw("instant")
        }
        switch event.kind {
        case .subscribe(let publisher, let subscriber):
            line.raw("\",\"kind\":\"subscribe\",\"publisher\":")
            line.number(publisher.rawValue)
            line.raw(",\"subscriber\":")
            line.number(subscriber.rawValue)
        case .receiveSubscription(let subscriber, let subscription):
            line.raw("\",\"kind\":\"receive_subscription\",\"subscriber\":")
            line.number(subscriber.rawValue)
            line.raw(",\"subscription\":")
            line.number(subscription.rawValue)
        case .request(let subscription, let demand):
            line.raw("\",\"kind\":\"request\",\"subscription\":")
            line.number(subscription.rawValue)
            line.raw(",\"demand\":")
            line.demand(demand)
            if let site = event.callSite {
                line.raw(",\"site\":")
                line.number(site)
            }
        case .value(let subscriber, let returnedDemand, let value):
            line.raw("\",\"kind\":\"value\",\"subscriber\":")
            line.number(subscriber.rawValue)
            if let returnedDemand {
                line.raw(",\"demand\":")
                line.demand(returnedDemand)
            }
            if let value {
                line.raw(",\"value\":")
                line.string(value)
            }
        case .completion(let subscriber, let completion):
            line.raw("\",\"kind\":\"completion\",\"subscriber\":")
            line.number(subscriber.rawValue)
            switch completion {
            case .finished:
                line.raw(",\"completion\":\"finished\"")
            case .failure(let error):
                line.raw(",\"completion\":\"failure\",\"error\":")
                line.string(error)
            }
        case .cancel(let subscription):
            line.raw("\",\"kind\":\"cancel\",\"subscription\":")
            line.number(subscription.rawValue)
            if let site = event.callSite {
                line.raw(",\"site\":")
                line.number(site)
            }
        case .deallocation(let object, let evidence):
            line.raw("\",\"kind\":\"deallocation\",\"object\":")
            line.number(object.rawValue)
            switch evidence {
            case .exact:
                line.raw(",\"evidence\":\"exact\"")
            case .observed(let aliveAtSeq):
                line.raw(",\"evidence\":\"observed\",\"alive_at\":")
                line.number(aliveAtSeq)
            }
        case .mark(let label):
            line.raw("\",\"kind\":\"mark\",\"label\":")
            line.string(label)
        }
        line.raw("}\n")
    }
}
