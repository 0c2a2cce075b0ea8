import LifelineLog

/// Turns events into sequence rows: pairs each return with its call on the same thread,
/// works out who called whom, and cuts the rows into units for folding.
///
/// A unit is the rows of one thread from a moment its call stack is empty to the next
/// such moment, or until another thread's event comes between. Inside a long unit, the calls
/// one level down are units too (``foldedWithin(_:level:)``): a `retry` resubscribing a
/// thousand times within one outer call folds as well.
struct StepBuilder {
    private(set) var steps: [SequenceStep] = []
    /// For each row, how many calls were open on its thread after it.
    private var openAfter: [Int] = []
    /// For each row, whether a diagnosis cites it or it closes a call that never returned:
    /// such a row is never folded away.
    private var pinnedRows: [Bool] = []

    private let laneOf: ObjectTable<Int>
    /// Whether a call between two objects of one lane (a pipeline's folded operators) is
    /// left out rather than drawn as a call to itself.
    private let hidesCallsWithinALane: Bool
    /// Objects folded into a group lane: their deaths are not drawn unless a finding cites
    /// them, so the group's lifeline does not end at its first member's death.
    private let foldedObjects: Set<TraceObjectID>
    private var subscriberOf: ObjectTable<TraceObjectID>
    private var subscriptionOf: ObjectTable<TraceObjectID>
    private var publisherOf: ObjectTable<TraceObjectID>
    /// The operator that handed each subscriber the subscription it got itself, passing it on.
    private var passedOnBy: ObjectTable<TraceObjectID>
    private var stacks = CallStacks()
    /// How many calls each lane has open, by lane.
    private var openCount: [Int] = []

    private var units: [Unit] = []
    private var unitThread: UInt64?
    private var unitClosed = true

    private struct OpenCall {
        let key: CallKey
        let caller: Int?
        let callee: Int
        let kind: CallKind
        let depth: Int
        /// A call within one lane, left out.
        var hidden = false
    }

    /// What pairs a return with its call: the event kind and the objects it names.
    private struct CallKey: Hashable {
        let kind: Int
        let first: TraceObjectID?
        let second: TraceObjectID?

        /// The `kind` of a subscription's delivery (see ``key(of:)``).
        static let receiveSubscription = 1

        /// Whether the call delivers to its `first`, a subscriber: a subscription, a value or a
        /// completion (see ``key(of:)``).
        var isDelivery: Bool { kind == Self.receiveSubscription || kind == 3 || kind == 4 }
    }

    /// The open calls of each thread, innermost last. Consecutive events nearly always come
    /// from one thread, whose stack is found without hashing.
    private struct CallStacks {
        private var stacks: [[OpenCall]] = []
        private var indexOfThread: [UInt64: Int] = [:]
        private var last: (thread: UInt64, index: Int)?

        subscript(thread: UInt64) -> [OpenCall] {
            mutating get { stacks[index(of: thread)] }
            _modify {
                let index = index(of: thread)
                yield &stacks[index]
            }
        }

        private mutating func index(of thread: UInt64) -> Int {
            if let last, last.thread == thread { return last.index }
            let index = indexOfThread[thread] ?? {
                stacks.append([])
                indexOfThread[thread] = stacks.count - 1
                return stacks.count - 1
            }()
            last = (thread, index)
            return index
        }
    }

    private struct Unit {
        var steps: Range<Int>
        var pinned: Bool
    }

    /// What a row looks like, without its sequence number or value text.
    private enum Shape: Hashable {
        case call(caller: Int?, callee: Int, kind: CallKind, depth: Int, context: Int?)
        case callReturn(caller: Int?, callee: Int, kind: CallKind, depth: Int, returnedDemand: TraceDemand?, context: Int?)
        case deallocation(lane: Int)
        case mark(String)
        case other

        init(_ step: SequenceStep) {
            switch step.content {
            case .call(let caller, let callee, let kind, let depth):
                self = .call(caller: caller, callee: callee, kind: kind.shape, depth: depth, context: step.context)
            case .callReturn(let caller, let callee, let kind, let depth, let returnedDemand):
                self = .callReturn(caller: caller, callee: callee, kind: kind.shape, depth: depth,
                                   returnedDemand: returnedDemand, context: step.context)
            case .deallocation(let lane, _): self = .deallocation(lane: lane)
            case .mark(let label): self = .mark(label)
            case .fold, .note, .logEnd, .wait: self = .other
            }
        }
    }

    init(laneOf: ObjectTable<Int>, foldedObjects: Set<TraceObjectID> = []) {
        self.laneOf = laneOf
        (subscriberOf, subscriptionOf, publisherOf) = (laneOf.emptyCopy(), laneOf.emptyCopy(), laneOf.emptyCopy())
        passedOnBy = laneOf.emptyCopy()
        self.hidesCallsWithinALane = !foldedObjects.isEmpty
        self.foldedObjects = foldedObjects
    }

    /// Makes room for `rows` rows (about one per event) at once.
    mutating func reserveCapacity(rows: Int) {
        steps.reserveCapacity(rows)
        openAfter.reserveCapacity(rows)
        pinnedRows.reserveCapacity(rows)
    }

    /// Adds the rows of one event. A `pinned` event is cited by a diagnosis and is never
    /// folded away.
    mutating func add(_ event: TraceEvent, context: Int, pinned: Bool) {
        if unitClosed || unitThread != event.thread {
            units.append(Unit(steps: steps.count..<steps.count, pinned: false))
            unitThread = event.thread
        }
        let first = steps.count
        switch (event.kind, event.phase) {
        case (.deallocation(let object, let evidence), _):
            if let lane = laneOf[object], pinned || !foldedObjects.contains(object) {
                append(.deallocation(lane: lane, evidence: evidence), event, context)
            }
        case (.mark(let label), _):
            append(.mark(label), event, context)
        case (_, .begin):
            begin(event, context)
        case (_, .end):
            end(event, context)
        case (_, .instant):
            begin(event, context)
            end(event, context)
        }
        units[units.count - 1].steps = units[units.count - 1].steps.lowerBound..<steps.count
        for row in first..<steps.count {
            openAfter.append(stacks[steps[row].thread ?? event.thread].count)
            pinnedRows.append(pinned || steps[row].seq == nil)
        }
        if pinned || steps[first...].contains(where: { $0.seq == nil }) { units[units.count - 1].pinned = true }
        unitClosed = stacks[event.thread].isEmpty
    }

    private mutating func append(_ content: SequenceStep.Content, _ event: TraceEvent?, _ context: Int, thread: UInt64? = nil) {
        steps.append(SequenceStep(content: content, seq: event?.seq, time: event?.time,
                                  thread: event?.thread ?? thread, context: context))
    }

    private mutating func begin(_ event: TraceEvent, _ context: Int) {
        let (caller, callee, kind) = participants(of: event.kind, inside: stacks[event.thread].last?.key)
        let calleeLane = laneOf[callee]!
        var callerLane = caller.flatMap { laneOf[$0] }
        if callerLane == calleeLane {
            if hidesCallsWithinALane && caller != callee {
                stacks[event.thread].append(
                    OpenCall(key: key(of: event.kind), caller: nil, callee: calleeLane, kind: kind, depth: 0, hidden: true))
                return
            }
            callerLane = nil
        }
        if calleeLane >= openCount.count { openCount += repeatElement(0, count: calleeLane + 1 - openCount.count) }
        let depth = openCount[calleeLane]
        openCount[calleeLane] = depth + 1
        stacks[event.thread].append(
            OpenCall(key: key(of: event.kind), caller: callerLane, callee: calleeLane, kind: kind, depth: depth))
        append(.call(caller: callerLane, callee: calleeLane, kind: kind, depth: depth), event, context)
    }

    private mutating func end(_ event: TraceEvent, _ context: Int) {
        let key = key(of: event.kind)
        guard let position = stacks[event.thread].lastIndex(where: { $0.key == key }) else {
            // A return without its call (the log began mid-call): show it as a call that
            // returned at once.
            begin(event, context)
            return close(event, context, returnedDemand: returnedDemand(of: event.kind))
        }
        while stacks[event.thread].count > position + 1 {
            // A call that never returned, left open by an enclosing call that did: close it
            // here so every activation ends.
            close(nil, context, returnedDemand: nil, thread: event.thread)
        }
        close(event, context, returnedDemand: returnedDemand(of: event.kind))
    }

    private mutating func close(_ event: TraceEvent?, _ context: Int, returnedDemand: TraceDemand?, thread: UInt64? = nil) {
        let open = stacks[event?.thread ?? thread!].removeLast()
        if open.hidden { return }
        openCount[open.callee] -= 1
        append(.callReturn(caller: open.caller, callee: open.callee, kind: open.kind, depth: open.depth,
                           returnedDemand: returnedDemand),
               event, context, thread: thread)
    }

    private func returnedDemand(of kind: TraceEvent.Kind) -> TraceDemand? {
        if case .value(_, let demand, _) = kind { return demand }
        return nil
    }

    private func key(of kind: TraceEvent.Kind) -> CallKey {
        switch kind {
        case .subscribe(let publisher, let subscriber): return CallKey(kind: 0, first: publisher, second: subscriber)
        case .receiveSubscription(let subscriber, let subscription):
            return CallKey(kind: CallKey.receiveSubscription, first: subscriber, second: subscription)
        case .request(let subscription, _): return CallKey(kind: 2, first: subscription, second: nil)
        case .value(let subscriber, _, _): return CallKey(kind: 3, first: subscriber, second: nil)
        case .completion(let subscriber, _): return CallKey(kind: 4, first: subscriber, second: nil)
        case .cancel(let subscription): return CallKey(kind: 5, first: subscription, second: nil)
        case .deallocation(let object, _): return CallKey(kind: 6, first: object, second: nil)
        case .mark: return CallKey(kind: 7, first: nil, second: nil)
        }
    }

    /// Who called whom, and what the call was, for a call made inside the open call `enclosing`
    /// on the same thread. Updates who is subscribed to what.
    private mutating func participants(
        of kind: TraceEvent.Kind, inside enclosing: CallKey?
    ) -> (caller: TraceObjectID?, callee: TraceObjectID, CallKind) {
        switch kind {
        case .subscribe(let publisher, let subscriber):
            publisherOf[subscriber] = publisher
            // A pipeline's end subscribed while another lane's subscriber is delivered to (a
            // sink made in a hand-written subscriber's `receive(_:)`) is subscribed by that
            // subscriber's code: drawn from its lane, in a folded picture, where such an end
            // has a lane of its own.
            if hidesCallsWithinALane, !foldedObjects.contains(subscriber), let enclosing, enclosing.isDelivery,
               let receiver = enclosing.first, receiver != subscriber, let lane = laneOf[receiver], lane != laneOf[subscriber] {
                return (receiver, publisher, .subscribe)
            }
            return (subscriber, publisher, .subscribe)
        case .receiveSubscription(let subscriber, let subscription):
            // Handed on inside the receipt of the same subscription: the receiver passes it on.
            var passer: TraceObjectID?
            if let enclosing, enclosing.kind == CallKey.receiveSubscription, let outer = enclosing.first,
               outer != subscriber, enclosing.second == subscription {
                passer = outer
            }
            passedOnBy[subscriber] = passer
            subscriberOf[subscription] = subscriber
            subscriptionOf[subscriber] = subscription
            return (passer ?? subscription, subscriber, .receiveSubscription)
        case .request(let subscription, let demand):
            return (subscriberOf[subscription], subscription, .request(demand))
        case .cancel(let subscription):
            return (subscriberOf[subscription], subscription, .cancel)
        case .value(let subscriber, _, let value):
            return (deliverer(to: subscriber, inside: enclosing), subscriber, .value(value))
        case .completion(let subscriber, let completion):
            return (deliverer(to: subscriber, inside: enclosing), subscriber, .completion(completion))
        case .deallocation, .mark:
            preconditionFailure("instants are not calls")
        }
    }

    /// Who delivers to `subscriber`: its subscription (or, before it has one, its publisher),
    /// unless the subscription is one an operator passed on as it got it (OpenCombine's
    /// `filter` hands its downstream its upstream's subscription) and that operator is passing
    /// on what it is being delivered.
    private func deliverer(to subscriber: TraceObjectID, inside enclosing: CallKey?) -> TraceObjectID? {
        guard let subscription = subscriptionOf[subscriber] else { return publisherOf[subscriber] }
        if let passer = passedOnBy[subscriber], let enclosing, enclosing.isDelivery, enclosing.first == passer {
            return passer
        }
        return subscription
    }

    /// The rows with long runs of a repeating block of units collapsed: the first and last
    /// repetitions are kept and a fold row stands for the ones between.
    /// With `interleaved`, repeats with only other lanes' calls between them fold too.
    func folded(interleaved: Bool = true) -> [SequenceStep] {
        // Units whose calls were all left out hold no rows.
        let units = self.units.filter { !$0.steps.isEmpty }
        var signatureIDs: [[Shape]: Int] = [:]
        let lengths = Self.sharedLengths(units.map(\.steps))
        let signatures: [Int] = units.enumerated().map { index, unit in
            // A unit of a length no other unit has repeats nothing: its rows are not hashed.
            if unit.pinned || !lengths.contains(unit.steps.count) { return -1 - index }
            let shape = steps[unit.steps].map(Shape.init)
            if let id = signatureIDs[shape] { return id }
            signatureIDs[shape] = signatureIDs.count
            return signatureIDs.count - 1
        }

        /// What the rows become: a unit's rows, or a fold row.
        enum Item {
            case unit(Int)
            case fold(SequenceStep)
        }
        var items: [Item] = []
        // Units kept as a contiguous run's first or last block are not folded again.
        var kept = Set<Int>()
        var index = 0
        while index < units.count {
            guard let (block, repeats) = Self.longestRepeat(in: signatures, at: index) else {
                items.append(.unit(index))
                index += 1
                continue
            }
            let leftOut = units[index + block].steps.lowerBound..<units[index + (repeats - 1) * block - 1].steps.upperBound
            for unit in index..<(index + block) { items.append(.unit(unit)); kept.insert(unit) }
            items.append(.fold(fold(steps[leftOut], repeats: repeats - 2)))
            for unit in (index + (repeats - 1) * block)..<(index + repeats * block) { items.append(.unit(unit)); kept.insert(unit) }
            index += repeats * block
        }

        // Interleaved repeats: the same unit coming back again and again while only other
        // lanes act between (a ticker's values among other pipelines' calls) keeps its first
        // and last occurrence, and a fold row after the first stands for the ones between.
        // Anything on the unit's own lanes between two occurrences breaks the chain, so an
        // interplay on those lanes (demand changing between values) is always drawn.
        func lanes(of item: Item) -> Set<Int> {
            switch item {
            case .unit(let unit): return Set(steps[units[unit].steps].flatMap(\.lanes))
            case .fold(let step): return Set(step.lanes)
            }
        }
        let itemLanes = items.map(lanes)
        var chains: [[Int]] = []
        var openChain: [Int: Int] = [:]
        for (position, item) in items.enumerated() {
            var own: Int?
            if case .unit(let unit) = item { own = signatures[unit] }
            var broken: [Int] = []
            for (signature, chain) in openChain
            where signature != own && !itemLanes[position].isDisjoint(with: itemLanes[chains[chain][0]]) {
                broken.append(signature)
            }
            for signature in broken { openChain[signature] = nil }
            guard case .unit(let unit) = item, signatures[unit] >= 0, !kept.contains(unit) else { continue }
            if let chain = openChain[signatures[unit]] {
                chains[chain].append(position)
            } else {
                openChain[signatures[unit]] = chains.count
                chains.append([position])
            }
        }
        var leftOutPositions = Set<Int>()
        var foldAfter: [Int: SequenceStep] = [:]
        for positions in chains where interleaved && positions.count >= SequenceModel.shortestFoldedRun {
            let middle = positions.dropFirst().dropLast()
            var leftOut: [SequenceStep] = []
            for position in middle {
                if case .unit(let unit) = items[position] { leftOut += steps[units[unit].steps] }
                leftOutPositions.insert(position)
            }
            foldAfter[positions[0]] = fold(leftOut[...], repeats: middle.count)
        }

        var result: [SequenceStep] = []
        for (position, item) in items.enumerated() where !leftOutPositions.contains(position) {
            switch item {
            case .unit(let unit): result += foldedWithin(units[unit].steps, level: 0)
            case .fold(let step): result.append(step)
            }
            if let fold = foldAfter[position] { result.append(fold) }
        }
        return result
    }

    /// The block of at most ``SequenceModel/longestRepeatedBlock`` units that repeats the most
    /// rows' worth from `index` on, at least ``SequenceModel/shortestFoldedRun`` times, if any.
    /// A unique (negative) signature never repeats.
    private static func longestRepeat(in signatures: [Int], at index: Int) -> (block: Int, repeats: Int)? {
        var best: (block: Int, repeats: Int)?
        for block in 1...SequenceModel.longestRepeatedBlock where index + block <= signatures.count {
            var repeats = 1
            while index + (repeats + 1) * block <= signatures.count,
                  signatures[(index + repeats * block)..<(index + (repeats + 1) * block)]
                    .elementsEqual(signatures[index..<(index + block)]) {
                repeats += 1
            }
            if repeats >= SequenceModel.shortestFoldedRun, repeats * block > (best.map { $0.block * $0.repeats } ?? 0) {
                best = (block, repeats)
            }
        }
        return best
    }

    /// The numbers of rows that more than one of `ranges` has: only ranges of those lengths can
    /// repeat one another.
    private static func sharedLengths(_ ranges: [Range<Int>]) -> Set<Int> {
        var seen = Set<Int>(), shared = Set<Int>()
        for range in ranges where !seen.insert(range.count).inserted { shared.insert(range.count) }
        return shared
    }

    /// The shortest run of rows worth looking into for repeats one level down.
    private static let shortestNestedSearch = 4 * SequenceModel.shortestFoldedRun

    /// The rows `range`, which begin and end with `level` calls open on their thread, with
    /// runs of a repeating block of the calls made at that level folded, and the same done
    /// inside each call that is drawn.
    private func foldedWithin(_ range: Range<Int>, level: Int) -> [SequenceStep] {
        guard range.count >= Self.shortestNestedSearch, level < 64 else { return Array(steps[range]) }
        var children: [Range<Int>] = []
        var start = range.lowerBound
        for row in range where openAfter[row] <= level {
            children.append(start..<(row + 1))
            start = row + 1
        }
        if start < range.upperBound { children.append(start..<range.upperBound) }
        var shapeIDs: [[Shape]: Int] = [:]
        let lengths = Self.sharedLengths(children)
        let signatures: [Int] = children.enumerated().map { index, child in
            // The one call that holds all the others (a retry's) is not hashed at every level.
            if !lengths.contains(child.count) || pinnedRows[child].contains(true) { return -1 - index }
            let shape = steps[child].map(Shape.init)
            if let id = shapeIDs[shape] { return id }
            shapeIDs[shape] = shapeIDs.count
            return shapeIDs.count - 1
        }
        var result: [SequenceStep] = []
        func drawn(_ child: Range<Int>) {
            // A call drawn whole: its first and last rows, and what it called, folded in turn.
            guard child.count > 2, openAfter[child.lowerBound] == level + 1, openAfter[child.upperBound - 1] == level else {
                result += steps[child]
                return
            }
            result.append(steps[child.lowerBound])
            result += foldedWithin((child.lowerBound + 1)..<(child.upperBound - 1), level: level + 1)
            result.append(steps[child.upperBound - 1])
        }
        var index = 0
        while index < children.count {
            guard let (block, repeats) = Self.longestRepeat(in: signatures, at: index) else {
                drawn(children[index])
                index += 1
                continue
            }
            for child in children[index..<(index + block)] { drawn(child) }
            let leftOut = children[index + block].lowerBound..<children[index + (repeats - 1) * block - 1].upperBound
            result.append(fold(steps[leftOut], repeats: repeats - 2))
            for child in children[(index + (repeats - 1) * block)..<(index + repeats * block)] { drawn(child) }
            index += repeats * block
        }
        return result
    }

    private func fold(_ leftOut: ArraySlice<SequenceStep>, repeats: Int) -> SequenceStep {
        // The bounds are found in one pass, with no array per row: a retry's run is a million rows.
        var seqs = (low: UInt64.max, high: UInt64.min), lanes = (low: Int.max, high: Int.min)
        func include(_ lane: Int) { lanes = (min(lanes.low, lane), max(lanes.high, lane)) }
        for step in leftOut {
            if let seq = step.seq { seqs = (min(seqs.low, seq), max(seqs.high, seq)) }
            step.forEachLane(include)
        }
        var noun = "repetitions"
        if case .call(_, _, let kind, _) = leftOut.first?.content {
            if kind.isValue { noun = "values" } else if case .request = kind { noun = "requests" }
        }
        let run = RepeatedRun(repeats: repeats, noun: noun, seqs: seqs.low...seqs.high, lanes: lanes.low...lanes.high)
        return SequenceStep(content: .fold(run), seq: nil, time: nil, thread: nil, context: nil)
    }
}
