import LifelineLog

/// A stretch of a recording that must leave nothing behind: every subscriber and subscription
/// first seen inside it should be finished, cancelled or gone once it ends.
///
/// It is the log's form of XCTest's `addTeardownBlock { [weak sut] in XCTAssertNil(sut) }`:
/// whoever records it (a test helper) marks where the scope begins and ends, lets pending
/// work drain, then stops the recording.
public struct ObservedScope: Hashable, Sendable {
    /// The sequence number of the event that opens the scope.
    public let begin: UInt64
    /// The sequence number of the event that closes the scope.
    public let end: UInt64

    /// A scope between two events.
    public init(begin: UInt64, end: UInt64) {
        self.begin = begin
        self.end = end
    }

    /// The scope between the first mark labelled `beginMark` and the first later mark
    /// labelled `endMark`, or `nil` when the trace lacks either.
    public init?(trace: Trace, beginMark: String, endMark: String) {
        guard let begin = trace.events.first(where: { $0.kind == .mark(label: beginMark) })?.seq,
              let end = trace.events.first(where: { $0.seq > begin && $0.kind == .mark(label: endMark) })?.seq
        else { return nil }
        self.init(begin: begin, end: end)
    }

    /// Every scope of a scenario run again and again: each mark labelled `beginMark` with the
    /// first later mark labelled `endMark` before the next `beginMark`, in order. A repetition
    /// whose end mark the log lacks ends the list.
    public static func repetitions(in trace: Trace, beginMark: String, endMark: String) -> [ObservedScope] {
        var scopes: [ObservedScope] = []
        var begin: UInt64?
        for event in trace.events {
            guard case .mark(let label) = event.kind else { continue }
            if label == beginMark {
                if begin != nil { break }
                begin = event.seq
            } else if label == endMark, let opened = begin {
                scopes.append(ObservedScope(begin: opened, end: event.seq))
                begin = nil
            }
        }
        return scopes
    }

    /// Whether event `seq` happened inside the scope.
    public func contains(_ seq: UInt64) -> Bool {
        begin < seq && seq < end
    }
}
