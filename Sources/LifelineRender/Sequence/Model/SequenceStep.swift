import LifelineAnalysis
import LifelineLog

/// One row of a sequence diagram, in the order the rows are drawn.
struct SequenceStep: Sendable {
    /// What the row shows.
    enum Content: Sendable {
        /// A call begins: an arrow from `caller` (nil when unknown: drawn as a call to
        /// itself) to `callee`, whose activation opens at `depth` (0 when it was idle).
        /// Each thread's activations close in reverse order, so a renderer pairs a return with
        /// the innermost activation its thread opened on the callee (the SVG does; Mermaid and
        /// PlantUML can only close a lane's innermost, which differs when two threads are
        /// inside one object at once).
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
        /// Where a log without its end record ended (when the program was seen hanging, when
        /// a hang record says), under the waits.
        case logEnd(String)
        /// What a stage of a pipeline still open when an unfinished log ended waits on, under
        /// every other row.
        case wait(WaitNote)
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
