/// Finds an event by its sequence number among events sorted by it, without a table: by
/// subtraction when the numbers run without gaps (as they do in a log that lost nothing), else
/// by binary search.
///
/// ```swift
/// let positions = EventPositions(trace.events)
/// if let index = positions.position(of: 42) { print(trace.events[index]) }
/// ```
public struct EventPositions: Sendable {
    /// The events, sorted by ``TraceEvent/seq``; shared with the caller's array, not copied.
    public let events: [TraceEvent]

    /// Indexes `events`, which must be sorted by sequence number.
    public init(_ events: [TraceEvent]) {
        self.events = events
    }

    /// The index in ``events`` of the event numbered `seq`, or `nil` when there is none.
    public func position(of seq: UInt64) -> Int? {
        guard let first = events.first?.seq, seq >= first else { return nil }
        let guess = seq - first
        if guess < UInt64(events.count), events[Int(guess)].seq == seq { return Int(guess) }
        var low = 0, high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].seq < seq { low = middle + 1 } else { high = middle }
        }
        return low < events.count && events[low].seq == seq ? low : nil
    }

    /// The event numbered `seq`, or `nil` when there is none.
    public func event(_ seq: UInt64) -> TraceEvent? {
        position(of: seq).map { events[$0] }
    }
}
