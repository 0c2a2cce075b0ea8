/// Collects the lines of a log and checks that they fit together.
struct TraceBuilder {
    /// Every declared object, with the line that declared it for the message when a later line
    /// contradicts it.
    private var objects = DeclaredObjects()
    private var threads: [UInt64: TraceThread] = [:]
    private var queues: [UInt32: TraceQueue] = [:]
    private var events: [TraceEvent] = []
    /// The line of each event, for messages.
    private var eventLines: [Int] = []
    /// Each snapshot, its line, and the nodes the line itself lists (all of them for a full
    /// line, the new or changed ones for a delta): what `finish` checks are declared.
    private var snapshots: [(snapshot: TraceSnapshot, line: Int, listed: [TraceSnapshot.Node])] = []
    private var callSites: [UInt64: TraceCallSite] = [:]
    private var end: (events: UInt64, dropped: UInt64, line: Int)?
    private var interner = TextInterner()
    /// Whether the log may hold `type` lines and object lines that name their type by number
    /// (version 8 on): set once the header is read.
    var namesTypes = false
    /// Whether the log may hold `hang` lines (version 10 on): set once the header is read.
    var recordsHangs = false
    /// The hang records, in the order of their lines.
    private var hangs: [TraceHang] = []
    /// Each declared type, with the line that declared it.
    private var types: [UInt64: (type: TraceObjectType, line: Int)] = [:]

    /// Makes room for `events` events.
    mutating func reserveCapacity(events count: Int) {
        events.reserveCapacity(count)
        eventLines.reserveCapacity(count)
    }

    /// Adds the event or object line `line` holds, read the quick way; `false` when it is some
    /// other line, or one that only ``add(_:)-(LineFields)`` reads right (or rejects in words).
    mutating func add(_ line: FlatLine, number: Int) throws(TraceReadError) -> Bool {
        if line.has(.seq) {
            guard let event = Self.event(line, interner: &interner) else { return false }
            events.append(event)
            eventLines.append(number)
            return true
        }
        guard line.string(.kind, is: "object") else { return false }
        if namesTypes && line.has(.type) && !line.isString(.type) {
            guard let type = line.unsigned(.type), type > 0, let object = Self.object(line, ofType: .unresolved, interner: &interner) else {
                return false
            }
            try declare(object, line: number, type: type)
            return true
        }
        guard let object = Self.object(line, interner: &interner) else { return false }
        try declare(object, line: number, type: 0)
        return true
    }

    /// Adds an event read from a binary record.
    mutating func add(_ event: TraceEvent, number: Int) {
        events.append(event)
        eventLines.append(number)
    }

    mutating func add(_ fields: LineFields) throws(TraceReadError) {
        guard !fields.has("seq") else {
            events.append(try Self.event(fields))
            eventLines.append(fields.number)
            return
        }
        switch try fields.string("kind") {
        case "object":
            if namesTypes && fields.has("type") && (try? fields.string("type")) == nil {
                try declare(try Self.object(fields, ofType: .unresolved), line: fields.number, type: try Self.typeNumber(fields, "type"))
            } else {
                try declare(try Self.object(fields), line: fields.number, type: 0)
            }
        case "type" where namesTypes:
            let type = try Self.objectType(fields)
            if let earlier = types[type.id] {
                guard earlier.type == type else {
                    throw .conflictingDeclaration(line: fields.number, what: "type \(type.id)", firstLine: earlier.line)
                }
            } else {
                types[type.id] = (type, fields.number)
            }
        case "hang" where recordsHangs:
            let idle = try fields.unsigned("idle")
            hangs.append(TraceHang(
                seq: try fields.unsigned("at"), time: try fields.unsigned("t"), idle: idle,
                cause: try fields.choice("cause", of: TraceHang.Cause.self)
            ))
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
            snapshots.append((full, fields.number, snapshot.nodes))
        case "end":
            if let end { throw .repeatedEndRecord(line: fields.number, firstLine: end.line) }
            end = (try fields.unsigned("events"), try fields.unsigned("dropped"), fields.number)
        case let other:
            throw .badField(line: fields.number, field: "kind", reason: "has the unknown value \"\(other)\"")
        }
    }

    /// The recorder declares each object once; a repeat that says the same is harmless, one
    /// that says otherwise leaves no way to know which object the events meant. `type` is the
    /// number of the type line that says the object's type, or 0 when the line wrote it out.
    private mutating func declare(_ object: TraceObject, line: Int, type: UInt64) throws(TraceReadError) {
        if let earlier = objects.declaration(of: object.id) {
            guard earlier.object == object && earlier.type == type else {
                throw .conflictingDeclaration(line: line, what: "object \(object.id.rawValue)", firstLine: earlier.line)
            }
            return
        }
        objects.add(object, line: line, type: type)
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
        // A recorder writes its events in order, nearly always: then none can repeat.
        let ascending = Trace.isAscending(events)
        var seen = Set<UInt64>()
        // A declaration lost to a kill or a cut costs what it said, not the events that need it.
        var lost = LostDeclarations()
        for (object, _, type) in objects.declarations where type != 0 && types[type] == nil {
            lost.noteObject(object.id, ofLostType: type)
        }
        var lastThread: UInt64?, lastQueue: UInt32?
        var lastThreadDeclared = true, lastQueueDeclared = true
        // By index, field by field: a million events are not copied one by one.
        for index in events.indices {
            let seq = events[index].seq, thread = events[index].thread, line = eventLines[index]
            guard ascending || seen.insert(seq).inserted else { throw .duplicateSequence(line: line, seq: seq) }
            if objects.namesUndeclared(events[index].kind) {
                lost.noteEvent(events[index].kind, missingFrom: objects)
            }
            if lost.hasObjectsOfLostTypes { lost.noteRoles(in: events[index].kind) }
            if thread != lastThread {
                lastThread = thread
                lastThreadDeclared = threads[thread] != nil
            }
            if !lastThreadDeclared { lost.noteThread(thread) }
            if let queue = events[index].queue {
                if queue != lastQueue {
                    lastQueue = queue
                    lastQueueDeclared = queues[queue] != nil
                }
                if !lastQueueDeclared { lost.noteQueue(queue) }
            }
        }
        var snapshotIndexes = Set<Int>()
        for (snapshot, line, listed) in snapshots {
            guard snapshotIndexes.insert(snapshot.index).inserted else {
                throw .badField(line: line, field: "snapshot", reason: "repeats snapshot number \(snapshot.index)")
            }
            // A node enters a snapshot only through a line that lists it: checking what each
            // line lists checks every snapshot's nodes, without making each delta's whole.
            for node in listed where !objects.contains(node.id) {
                lost.noteSnapshot(naming: node.id)
            }
        }
        // A log cut off before recording stopped has no site lines: its objects keep their
        // site numbers, unresolved.
        var resolved = [TraceObjectID: TraceObject](minimumCapacity: objects.count)
        for (declared, _, type) in objects.declarations {
            let object = type == 0 ? declared : declared.typed(types[type]?.type ?? lost.placeholderType(type, for: declared.id))
            let site = object.sourceLocation == nil ? object.callSite.flatMap { callSites[$0]?.location } : nil
            resolved[object.id] = site.map(object.resolvingSourceLocation) ?? object
        }
        var threads = threads, queues = queues
        if !lost.isEmpty {
            lost.addPlaceholders(to: &resolved, threads: &threads, queues: &queues)
            damage += lost.damage
        }
        return Trace(
            header: header, objects: resolved, threads: threads, queues: queues,
            events: events, snapshots: snapshots.map(\.snapshot), damage: damage, callSites: callSites, hangs: hangs
        )
    }

    static func object(_ fields: LineFields) throws(TraceReadError) -> TraceObject {
        try object(fields, ofType: TraceObjectType(
            id: 0, typeName: try fields.string("type"), shortTypeName: try fields.string("short"),
            role: try fields.choice("role", of: TraceObjectRole.self), lifetimeTracked: try fields.boolean("lifetime")
        ))
    }

    /// The object an object line declares, of `type`: its fields after the type.
    private static func object(_ fields: LineFields, ofType type: TraceObjectType) throws(TraceReadError) -> TraceObject {
        TraceObject(
            id: try fields.id("id"), role: type.role, typeName: type.typeName, shortTypeName: type.shortTypeName,
            label: try fields.optionalString("label"), sourceLocation: try Self.hopLocation(fields),
            callSite: fields.has("site") ? try fields.unsigned("site") : nil, lifetimeTracked: type.lifetimeTracked,
            joinedMidStream: fields.has("joined") ? try fields.boolean("joined") : false
        )
    }

    /// A `type` line's type.
    private static func objectType(_ fields: LineFields) throws(TraceReadError) -> TraceObjectType {
        TraceObjectType(
            id: try typeNumber(fields, "id"), typeName: try fields.string("type"), shortTypeName: try fields.string("short"),
            role: try fields.choice("role", of: TraceObjectRole.self), lifetimeTracked: try fields.boolean("lifetime"),
            label: try fields.optionalString("label"), sourceLocation: try hopLocation(fields)
        )
    }

    /// The type number at `key`: a positive integer.
    private static func typeNumber(_ fields: LineFields, _ key: String) throws(TraceReadError) -> UInt64 {
        let number = try fields.unsigned(key)
        guard number > 0 else { throw .badField(line: fields.number, field: key, reason: "must be a positive integer") }
        return number
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
                    recorderWeak: node.has("recorder_weak") ? try node.integer("recorder_weak") : 0,
                    recorderUnowned: node.has("recorder_unowned") ? try node.integer("recorder_unowned") : 0
                )
                for (key, count) in [("strong", values.strong), ("weak", values.weak), ("unowned", values.unowned),
                                     ("recorder_weak", values.recorderWeak), ("recorder_unowned", values.recorderUnowned)]
                where count < 0 {
                    throw .badField(line: fields.number, field: node.name(key), reason: "is a negative count")
                }
                counts = TraceSnapshot.RetainCounts(
                    strong: values.strong, weak: values.weak, unowned: values.unowned, recorderWeak: values.recorderWeak,
                    recorderUnowned: values.recorderUnowned
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
            edges.append(try TraceSnapshot.Edge.read(edge))
        }
        let index = try fields.integer("snapshot")
        guard index > 0 else {
            throw .badField(line: fields.number, field: "snapshot", reason: "must be a positive integer")
        }
        // A snapshot written in full that took some nodes from earlier snapshots says which.
        var lastChecked: [TraceObjectID: UInt64] = [:]
        if fields.has("last_checked") {
            for entry in try fields.objects("last_checked") {
                let id = try entry.id("id")
                guard nodeIDs.contains(id) else {
                    throw .badField(line: fields.number, field: entry.name("id"), reason: "names object \(id.rawValue), which is not a node of the snapshot")
                }
                lastChecked[id] = try entry.unsigned("seq")
            }
        }
        return TraceSnapshot(
            index: index, seq: try fields.unsigned("at"), label: try fields.string("label"),
            reason: try fields.choice("reason", of: TraceSnapshot.Reason.self), nodes: nodes, edges: edges,
            lastChecked: lastChecked
        )
    }

    static func event(_ fields: LineFields) throws(TraceReadError) -> TraceEvent {
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

    // MARK: The quick way

    /// The event `line` holds, read as ``event(_:)`` reads it; `nil` where that one would need
    /// to say more.
    static func event(_ line: FlatLine, interner: inout TextInterner) -> TraceEvent? {
        guard let seq = line.unsigned(.seq) else { return nil }
        let phase: TraceEvent.Phase
        if line.string(.phase, is: "begin") {
            phase = .begin
        } else if line.string(.phase, is: "end") {
            phase = .end
        } else if line.string(.phase, is: "instant") {
            phase = .instant
        } else {
            return nil
        }
        var queue: UInt32?
        if line.has(.queue) {
            guard let id = line.unsigned(.queue).flatMap({ UInt32(exactly: $0) }) else { return nil }
            queue = id
        }
        var callSite: UInt64?
        if line.has(.site) {
            guard let site = line.unsigned(.site) else { return nil }
            callSite = site
        }
        guard let time = line.unsigned(.t), let thread = line.unsigned(.tid),
              let kind = kind(line, interner: &interner) else { return nil }
        return TraceEvent(seq: seq, time: time, thread: thread, queue: queue, phase: phase, kind: kind, callSite: callSite)
    }

    private static func kind(_ line: FlatLine, interner: inout TextInterner) -> TraceEvent.Kind? {
        if line.string(.kind, is: "value") {
            guard let subscriber = line.id(.subscriber), let value = line.uniqueString(.value) else { return nil }
            var returned: TraceDemand?
            if line.has(.demand) {
                guard let demand = line.demand(.demand) else { return nil }
                returned = demand
            }
            return .value(subscriber: subscriber, returnedDemand: returned, value: value)
        }
        if line.string(.kind, is: "request") {
            guard let subscription = line.id(.subscription), let demand = line.demand(.demand) else { return nil }
            return .request(subscription: subscription, demand: demand)
        }
        if line.string(.kind, is: "subscribe") {
            guard let publisher = line.id(.publisher), let subscriber = line.id(.subscriber) else { return nil }
            return .subscribe(publisher: publisher, subscriber: subscriber)
        }
        if line.string(.kind, is: "receive_subscription") {
            guard let subscriber = line.id(.subscriber), let subscription = line.id(.subscription) else { return nil }
            return .receiveSubscription(subscriber: subscriber, subscription: subscription)
        }
        if line.string(.kind, is: "cancel") {
            return line.id(.subscription).map { .cancel(subscription: $0) }
        }
        if line.string(.kind, is: "completion") {
            guard let subscriber = line.id(.subscriber) else { return nil }
            if line.string(.completion, is: "finished") { return .completion(subscriber: subscriber, completion: .finished) }
            guard line.string(.completion, is: "failure"), let error = line.string(.error, interner: &interner) else { return nil }
            return .completion(subscriber: subscriber, completion: .failure(error))
        }
        if line.string(.kind, is: "deallocation") {
            guard let object = line.id(.object) else { return nil }
            if line.string(.evidence, is: "exact") { return .deallocation(object: object, evidence: .exact) }
            guard line.string(.evidence, is: "observed"), let alive = line.unsigned(.aliveAt) else { return nil }
            return .deallocation(object: object, evidence: .observed(aliveAtSeq: alive))
        }
        if line.string(.kind, is: "mark") {
            return line.string(.label, interner: &interner).map { .mark(label: $0) }
        }
        return nil
    }

    /// The object `line` declares, read as ``add(_:)-(LineFields)`` reads it; `nil` where that
    /// one would need to say more.
    static func object(_ line: FlatLine, interner: inout TextInterner) -> TraceObject? {
        guard let role = line.choice(.role, of: TraceObjectRole.self),
              let typeName = line.string(.type, interner: &interner), let shortTypeName = line.string(.short, interner: &interner),
              let lifetimeTracked = line.boolean(.lifetime)
        else { return nil }
        let type = TraceObjectType(id: 0, typeName: typeName, shortTypeName: shortTypeName, role: role, lifetimeTracked: lifetimeTracked)
        return object(line, ofType: type, interner: &interner)
    }

    /// The object an object line declares, of `type`, read the quick way: its fields after the
    /// type.
    private static func object(_ line: FlatLine, ofType type: TraceObjectType, interner: inout TextInterner) -> TraceObject? {
        guard let id = line.id(.id), let label = line.optionalString(.label, interner: &interner),
              let source = line.optionalString(.source, interner: &interner),
              let function = line.optionalString(.function, interner: &interner)
        else { return nil }
        var callSite: UInt64?
        if line.has(.site) {
            guard let site = line.unsigned(.site) else { return nil }
            callSite = site
        }
        var joinedMidStream = false
        if line.has(.joined) {
            guard let joined = line.boolean(.joined) else { return nil }
            joinedMidStream = joined
        }
        let location = source.map { source in
            let place = TraceSourceLocation(fileAndLine: source)
            return TraceSourceLocation(file: place.file, line: place.line, function: function)
        }
        return TraceObject(
            id: id, role: type.role, typeName: type.typeName, shortTypeName: type.shortTypeName, label: label,
            sourceLocation: location, callSite: callSite, lifetimeTracked: type.lifetimeTracked, joinedMidStream: joinedMidStream
        )
    }
}
