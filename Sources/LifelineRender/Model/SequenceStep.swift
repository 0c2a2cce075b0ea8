import LifelineAnalysis
import LifelineLog

/// One row of a sequence diagram, in the order the rows are drawn.
struct SequenceStep: Sendable {
    /// What the row shows.
    enum Content: Sendable {
        /// A call begins: an arrow from `caller` (nil when unknown: drawn as a call to
        /// itself) to `callee`, whose activation opens at `depth` (0 when it was idle).
        /// Activations close in reverse order on each lane, so renderers pair a return with
        /// the innermost open activation of its callee.
        case call(caller: Int?, callee: Int, kind: CallKind, depth: Int)
        /// A call returns and its activation closes. `returnedDemand` is set for a value
        /// delivery: the demand `receive(_:)` returned, drawn as a return arrow.
        case callReturn(caller: Int?, callee: Int, kind: CallKind, depth: Int, returnedDemand: TraceDemand?)
        /// The object of `lane` was deallocated: its lifeline ends.
        case deallocation(lane: Int, evidence: TraceEvent.DeallocationEvidence)
        /// A user mark.
        case mark(String)
        /// `repeats` more repetitions of the block of rows just above were left out.
        case fold(RepeatedRun)
        /// A diagnosis, placed after its last evidence event.
        case note(DiagnosisNote)
    }

    /// What the row shows.
    let content: Content
    /// The event's sequence number; nil for folds, notes, and calls closed because an
    /// enclosing call returned first.
    let seq: UInt64?
    /// The event's time, in nanoseconds since the trace started; nil where `seq` is.
    let time: UInt64?
    /// The kernel thread the event ran on; nil for folds and notes.
    let thread: UInt64?
    /// The thread or queue the event ran on, as a legend entry; nil for folds and notes.
    let context: Int?
    /// The numbers of the diagnoses that cite this event.
    var citedBy: [Int] = []
}

/// A run of identical rows that folding left out.
struct RepeatedRun: Hashable, Sendable {
    /// How many times the repeated block was left out.
    let repeats: Int
    /// What one repetition is, plural: "values", "requests", "repetitions".
    let noun: String
    /// The first and last sequence numbers left out.
    let seqs: ClosedRange<UInt64>
    /// The leftmost and rightmost lanes the left-out rows touch.
    let lanes: ClosedRange<Int>

    /// `× 998 values (#12–#5000)`.
    var summary: String { "× \(repeats) \(noun) (#\(seqs.lowerBound)–#\(seqs.upperBound))" }
}

/// A diagnosis as a sequence diagram shows it.
struct DiagnosisNote: Hashable, Sendable {
    /// The diagnosis's number, counted from 1 in the order notes appear.
    let number: Int
    /// The diagnosis.
    let diagnosis: Diagnosis
    /// The lane the note is drawn beside.
    let lane: Int

    /// `⚠ warning subscriber-deallocated-early`.
    var heading: String { "\(Self.symbol(diagnosis.severity)) \(number) \(diagnosis.severity.rawValue): \(diagnosis.code)" }
    /// `Evidence: #3, #7`, or that the diagnosis cites no event.
    var evidenceLine: String {
        diagnosis.evidence.isEmpty
            ? "Evidence: none recorded"
            : "Evidence: " + diagnosis.evidence.map { "#\($0)" }.joined(separator: ", ")
    }

    static func symbol(_ severity: Diagnosis.Severity) -> String {
        switch severity {
        case .info: return "ℹ"
        case .warning: return "⚠"
        case .error: return "✖"
        }
    }
}
