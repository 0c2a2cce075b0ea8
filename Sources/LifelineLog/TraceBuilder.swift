/// Collects the lines of a log and checks that they fit together.
struct TraceBuilder {
    private var objects: [TraceObjectID: TraceObject] = [:]
    /// The line that declared each object, for the message when a later line contradicts it.
    private var objectLines: [TraceObjectID: Int] = [:]
    private var threads: [UInt64: TraceThread] = [:]
    private var queues: [UInt32: TraceQueue] = [:]
    private var events: [(event: TraceEvent, line: Int)] = []
    private var snapshots: [(snapshot: TraceSnapshot, line: Int)] = []
    private var callSites: [UInt64: TraceCallSite] = [:]
    private var end: (events: UInt64, dropped: UInt64, line: Int)?

    mutating func add(_ fields: LineFields) throws(TraceReadError) {
        guard !fields.has("seq") else {
            events.append((try Self.event(fields), fields.number))
            return
        }
        switch try fields.string("kind") {
        case "object":
            let id = try fields.id("id")
            let role = try fields.choice("role", of: TraceObjectRole.self)
            let object = TraceObject(
                id: id, role: role, typeName: try fields.string("type"),
                shortTypeName: try fields.string("short"), label: try fields.optionalString("label"),
                sourceLocation: try Self.hopLocation(fields),
                callSite: fields.has("site") ? try fields.unsigned("site") : nil,
                lifetimeTracked: try fields.boolean("lifetime"),
                joinedMidStream: fields.has("joined") ? try fields.boolean("joined") : false
            )
            // The recorder declares each object once; a repeat that says the same is harmless,
            // one that says otherwise leaves no way to know which object the events meant.
            if let earlier = objects[id], let earlierLine = objectLines[id] {
                guard earlier == object else {
                    throw .conflictingDeclaration(line: fields.number, what: "object \(id.rawValue)", firstLine: earlierLine)
                }
                return
            }
            objects[id] = object
            objectLines[id] = fields.number
        case "site":
            let site = try Self.callSite(fields)
            guard callSites.updateValue(site, forKey: site.id) == nil else {
                throw .badField(line: fields.number, field: "id", reason: "repeats call site \(site.id)")
            }
        case "thread":
            let tid = try fields.unsigned("tid")
            threads[tid] = TraceThread(tid: tid, name: try fields.string("name"))
        case "queue":
            let id = try fields.unsigned("id")
            guard let queueID = UInt32(exactly: id) else {
                throw .badField(line: fields.number, field: "id", reason: "is too large for a queue id")
            }
            queues[queueID] = TraceQueue(id: queueID, label: try fields.string("label"))
        case "snapshot":
            let snapshot = try Self.snapshot(fields)
            let full = fields.has("base") ? try TraceSnapshotDelta.reconstruct(fields, changes: snapshot, after: snapshots.last?.snapshot) : snapshot
            snapshots.append((full, fields.number))
        case "end":
            if let end { throw .repeatedEndRecord(line: fields.number, firstLine: end.line) }
            end = (try fields.unsigned("events"), try fields.unsigned("dropped"), fields.number)
        case let other:
            throw .badField(line: fields.number, field: "kind", reason: "has the unknown value \"\(other)\"")
        }
    }

    func finish(header: TraceHeader, damage: [TraceDamage]) throws(TraceReadError) -> Trace {
        var damage = damage
        if let end {
            if end.dropped > 0 { damage.append(.droppedEvents(end.dropped)) }
            if let gap = damage.first(where: { if case .unwrittenGap = $0 { true } else { false } }),
               case .unwrittenGap(let line) = gap {
                throw .malformedLine(line: line, reason: "zero bytes inside a log that was closed cleanly")
            }
            // Every event the recorder counted was written or dropped; fewer lines mean events
            // were lost after the recording closed the log, more mean the count is wrong.
            let found = UInt64(events.count)
            if found < end.events - min(end.dropped, end.events) || found > end.events {
                damage.append(.eventCountMismatch(counted: end.events, dropped: end.dropped, found: found))
            }
        } else {
            damage.append(.notClosed)
        }
        var seen = Set<UInt64>()
        for (event, line) in events {
            guard seen.insert(event.seq).inserted else { throw .duplicateSequence(line: line, seq: event.seq) }
            for object in event.kind.objects where objects[object] == nil {
                throw .undeclared(line: line, what: "object \(object.rawValue)")
            }
            if threads[event.thread] == nil { throw .undeclared(line: line, what: "thread \(event.thread)") }
            if let queue = event.queue, queues[queue] == nil { throw .undeclared(line: line, what: "queue \(queue)") }
        }
        var snapshotIndexes = Set<Int>()
        for (snapshot, line) in snapshots {
            guard snapshotIndexes.insert(snapshot.index).inserted else {
                throw .badField(line: line, field: "snapshot", reason: "repeats snapshot number \(snapshot.index)")
            }
            for node in snapshot.nodes where objects[node.id] == nil {
                throw .undeclared(line: line, what: "object \(node.id.rawValue)")
            }
        }
        // A log cut off before recording stopped has no site lines: its objects keep their
        // site numbers, unresolved.
        let resolved = objects.mapValues { object in
            object.resolvingSourceLocation(object.callSite.flatMap { callSites[$0]?.location })
        }
        return Trace(
            header: header, objects: resolved, threads: threads, queues: queues,
            events: events.map(\.event), snapshots: snapshots.map(\.snapshot), damage: damage, callSites: callSites
        )
    }

    /// The location a `.lifeline` hop wrote on its objects: `source` (`File.swift:42`), with
    /// `function` when present.
    private static func hopLocation(_ fields: LineFields) throws(TraceReadError) -> TraceSourceLocation? {
        guard let source = try fields.optionalString("source") else { return nil }
        let place = TraceSourceLocation(fileAndLine: source)
        return TraceSourceLocation(file: place.file, line: place.line, function: try fields.optionalString("function"))
    }

    private static func callSite(_ fields: LineFields) throws(TraceReadError) -> TraceCallSite {
        let file = try fields.optionalString("file"), function = try fields.optionalString("function")
        let line = fields.has("line") ? try fields.integer("line") : nil
        if let line, line <= 0 {
            throw .badField(line: fields.number, field: "line", reason: "must be a positive integer")
        }
        let location = file == nil && function == nil ? nil : TraceSourceLocation(file: file, line: line, function: function)
        let cause = fields.has("cancel") ? try fields.choice("cancel", of: TraceCallSite.CancelCause.self) : nil
        return TraceCallSite(id: try fields.unsigned("id"), location: location, cancelCause: cause)
    }

    private static func snapshot(_ fields: LineFields) throws(TraceReadError) -> TraceSnapshot {
        var nodes: [TraceSnapshot.Node] = []
        var nodeIDs = Set<TraceObjectID>()
        for node in try fields.objects("nodes") {
            let id = try node.id("id")
            guard nodeIDs.insert(id).inserted else {
                throw .badField(line: fields.number, field: node.name("id"), reason: "repeats object \(id.rawValue)")
            }
            var counts: TraceSnapshot.RetainCounts?
            if node.has("strong") || node.has("weak") || node.has("unowned") {
                let values = (
                    strong: try node.integer("strong"), weak: try node.integer("weak"), unowned: try node.integer("unowned"),
                    recorderWeak: node.has("recorder_weak") ? try node.integer("recorder_weak") : 0
                )
                for (key, count) in [("strong", values.strong), ("weak", values.weak), ("unowned", values.unowned),
                                     ("recorder_weak", values.recorderWeak)] where count < 0 {
                    throw .badField(line: fields.number, field: node.name(key), reason: "is a negative count")
                }
                counts = TraceSnapshot.RetainCounts(
                    strong: values.strong, weak: values.weak, unowned: values.unowned, recorderWeak: values.recorderWeak
                )
            }
            nodes.append(TraceSnapshot.Node(
                id: id, kind: try node.choice("kind", of: TraceSnapshot.Node.Kind.self), name: try node.optionalString("name"),
                retainCounts: counts, alive: try node.boolean("alive"), opaque: node.has("opaque") ? try node.boolean("opaque") : false
            ))
        }
        var edges: [TraceSnapshot.Edge] = []
        for edge in try fields.objects("edges") {
            let from = try edge.id("from"), to = try edge.id("to")
            // A delta's edges may name nodes it leaves as they were: checked once it is applied.
            for (key, id) in [("from", from), ("to", to)] where !fields.has("base") && !nodeIDs.contains(id) {
                throw .badField(line: fields.number, field: edge.name(key), reason: "names object \(id.rawValue), which is not a node of the snapshot")
            }
            edges.append(TraceSnapshot.Edge(
                from: from, to: to, field: try edge.string("field"),
                ownership: try edge.choice("ownership", of: TraceSnapshot.Ownership.self)
            ))
        }
        let index = try fields.integer("snapshot")
        guard index > 0 else {
            throw .badField(line: fields.number, field: "snapshot", reason: "must be a positive integer")
        }
        return TraceSnapshot(
            index: index, seq: try fields.unsigned("at"), label: try fields.string("label"),
            reason: try fields.choice("reason", of: TraceSnapshot.Reason.self), nodes: nodes, edges: edges
        )
    }

    private static func event(_ fields: LineFields) throws(TraceReadError) -> TraceEvent {
        let phaseName = try fields.string("phase")
        guard let phase = TraceEvent.Phase(rawValue: phaseName) else {
            throw .badField(line: fields.number, field: "phase", reason: "has the unknown value \"\(phaseName)\"")
        }
        var queue: UInt32?
        if fields.has("queue") {
            guard let id = UInt32(exactly: try fields.unsigned("queue")) else {
                throw .badField(line: fields.number, field: "queue", reason: "is too large for a queue id")
            }
            queue = id
        }
        return TraceEvent(
            seq: try fields.unsigned("seq"), time: try fields.unsigned("t"), thread: try fields.unsigned("tid"),
            queue: queue, phase: phase, kind: try kind(fields), callSite: fields.has("site") ? try fields.unsigned("site") : nil
        )
    }

    private static func kind(_ fields: LineFields) throws(TraceReadError) -> TraceEvent.Kind {
        switch try fields.string("kind") {
        case "subscribe":
            return .subscribe(publisher: try fields.id("publisher"), subscriber: try fields.id("subscriber"))
        case "receive_subscription":
            return .receiveSubscription(subscriber: try fields.id("subscriber"), subscription: try fields.id("subscription"))
        case "request":
            return .request(subscription: try fields.id("subscription"), demand: try fields.demand("demand"))
        case "value":
            return .value(
                subscriber: try fields.id("subscriber"),
                returnedDemand: fields.has("demand") ? try fields.demand("demand") : nil,
                value: try fields.optionalString("value")
            )
        case "completion":
            let completion: TraceEvent.Completion
            switch try fields.string("completion") {
            case "finished": completion = .finished
            case "failure": completion = .failure(try fields.string("error"))
            case let other:
                throw .badField(line: fields.number, field: "completion", reason: "has the unknown value \"\(other)\"")
            }
            return .completion(subscriber: try fields.id("subscriber"), completion: completion)
        case "cancel":
            return .cancel(subscription: try fields.id("subscription"))
        case "deallocation":
            let evidence: TraceEvent.DeallocationEvidence
            switch try fields.string("evidence") {
            case "exact": evidence = .exact
            case "observed": evidence = .observed(aliveAtSeq: try fields.unsigned("alive_at"))
            case let other:
                throw .badField(line: fields.number, field: "evidence", reason: "has the unknown value \"\(other)\"")
            }
            return .deallocation(object: try fields.id("object"), evidence: evidence)
        case "mark":
            return .mark(label: try fields.string("label"))
        case let other:
            throw .badField(line: fields.number, field: "kind", reason: "has the unknown value \"\(other)\"")
        }
    }
}
