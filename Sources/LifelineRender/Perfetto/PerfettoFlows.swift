/// Which value delivery led to which at the next hop downstream, for flow arrows.
///
/// A hop's subscriber X is often also the subscription of the next hop (`Map.Inner`), whose
/// subscriber D receives what X passes on. A delivery to D that begins while a delivery to X
/// is running on the same thread came from it. A delivery to D on its own (after a
/// `receive(on:)` thread hop) is paired with the oldest unpaired delivery to X, but only
/// when X and D received the same number of values overall; otherwise which value became
/// which is unknown, and no arrow is drawn.
struct PerfettoFlows {
    /// Flow ids starting at a call row, by row index.
    private(set) var outgoing: [Int: [UInt64]] = [:]
    /// Flow ids ending at a call row, by row index.
    private(set) var incoming: [Int: [UInt64]] = [:]

    init(model: SequenceModel) {
        // What is kept per lane is kept in arrays by lane, not hashed at every row.
        let laneCount = model.lanes.count
        // Each upstream lane's downstream is the last lane it handed a subscription to, with the
        // row where it did.
        var downstreamOf = [(lane: Int, row: Int)?](repeating: nil, count: laneCount)
        var valueCount = [Int](repeating: 0, count: laneCount)
        for (row, step) in model.steps.enumerated() {
            guard case .call(let caller, let callee, let kind, _) = step.content else { continue }
            if case .receiveSubscription = kind, let caller { downstreamOf[caller] = (callee, row) }
            if kind.isValue { valueCount[callee] += 1 }
        }
        // A lane that received subscriptions from several upstreams takes the last one as its
        // upstream: in the order of the rows (each row hands one subscription), never in the
        // order of the lanes.
        var upstreamOf = [Int?](repeating: nil, count: laneCount)
        let handOvers = downstreamOf.indices.compactMap { upstream in downstreamOf[upstream].map { (upstream, $0) } }
        for (upstream, downstream) in handOvers.sorted(by: { $0.1.row < $1.1.row }) {
            upstreamOf[downstream.lane] = upstream
        }

        var openValues: [UInt64: [(lane: Int, row: Int)]] = [:]
        // Deliveries to each lane that may still lead to an arrow, oldest first, with the
        // position of the oldest one not yet used; `paired` holds those used out of order.
        var waiting = [(rows: [Int], head: Int)](repeating: ([], 0), count: laneCount)
        var paired = Set<Int>()
        var nextID: UInt64 = 1
        for (row, step) in model.steps.enumerated() {
            let thread = step.thread ?? 0
            switch step.content {
            case .call(_, let callee, let kind, _) where kind.isValue:
                if let upstream = upstreamOf[callee] {
                    if let source = openValues[thread, default: []].last(where: { $0.lane == upstream }) {
                        link(from: source.row, to: row, id: &nextID)
                        paired.insert(source.row)
                    } else if valueCount[upstream] == valueCount[callee], downstreamOf[upstream] != nil {
                        var head = waiting[upstream].head
                        let rows = waiting[upstream].rows.count
                        while head < rows, paired.contains(waiting[upstream].rows[head]) { head += 1 }
                        if head < rows {
                            link(from: waiting[upstream].rows[head], to: row, id: &nextID)
                            head += 1
                        }
                        waiting[upstream].head = head
                    }
                }
                openValues[thread, default: []].append((callee, row))
                if downstreamOf[callee] != nil { waiting[callee].rows.append(row) }
            case .call:
                openValues[thread, default: []].append((-1, row))
            case .callReturn:
                _ = openValues[thread]?.popLast()
            default:
                break
            }
        }
    }

    private mutating func link(from source: Int, to target: Int, id: inout UInt64) {
        outgoing[source, default: []].append(id)
        incoming[target, default: []].append(id)
        id += 1
    }
}
