import LifelineLog

/// The chain of hops that one top-level subscribe made: the unit a person reads a trace by.
///
/// A pipeline is rooted at a subscribe made from the program's own code (outside any recorded
/// call), and holds every hop that subscribe set up: the operators' stages upstream, the
/// inner subscriptions `flatMap`, `switchToLatest` or `catch` made while it delivered, and the
/// upstream a `share()` or `multicast` connected for it. See ``TracePipelines`` for how hops
/// are attributed.
public struct Pipeline: Hashable, Sendable, Identifiable {
    /// A pipeline's number in its trace, `P1`, `P2`…: pipelines are numbered in the order of
    /// their first event, so the same log always gives the same numbers.
    public struct ID: Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The number, counted from 1.
        public let rawValue: Int

        /// Wraps a number.
        public init(_ rawValue: Int) {
            self.rawValue = rawValue
        }

        /// Reads `P3` (or `p3`) as pipeline 3.
        public init?(_ text: String) {
            guard let first = text.first, first == "P" || first == "p", let number = Int(text.dropFirst()), number > 0 else {
                return nil
            }
            rawValue = number
        }

        public static func < (lhs: ID, rhs: ID) -> Bool {
            lhs.rawValue < rhs.rawValue
        }

        public var description: String { "P\(rawValue)" }
    }

    /// Where a pipeline stood when recording stopped, judged by its end hop (the subscriber
    /// the top-level subscribe was made for).
    public enum State: String, Hashable, Sendable {
        /// The end subscriber received `.finished`.
        case finished
        /// The end subscriber received `.failure`.
        case failed
        /// The end hop's subscription was cancelled.
        case cancelled
        /// The end subscriber or its subscription died before the pipeline completed or was
        /// cancelled.
        case deallocated
        /// Still subscribed (or still awaiting its subscription) when recording stopped.
        case live
        /// Still subscribed (or still awaiting its subscription) when a log without its end
        /// record ended: the program was killed, timed out or crashed while the pipeline
        /// waited. The `waits-on` finding says what it waited on (``WaitsOnRule``).
        case waiting
    }

    /// The pipeline's number.
    public let id: ID
    /// The hop of the top-level subscribe: the pipeline's most downstream subscriber.
    public let end: Lifecycle.ID
    /// Every hop of the pipeline, in the order they began, `end` included.
    public let lifecycles: [Lifecycle.ID]
    /// Every object the pipeline's hops name, in id order. A shared upstream's publisher can
    /// belong to several pipelines.
    public let objects: [TraceObjectID]
    /// The sequence numbers of every event of the pipeline's hops, in order.
    public let events: [UInt64]
    /// Which of several pipelines that share a place or label this one is, in the order of
    /// their first events: the line that subscribed them ran more than once (a function
    /// called for each row, a closure run for each value).
    public struct Repetition: Hashable, Sendable, CustomStringConvertible {
        /// The pipeline's position among them, counted from 1.
        public let position: Int
        /// How many pipelines share the place or label.
        public let count: Int

        /// `2nd of 3`.
        public var description: String { "\(Self.ordinal(position)) of \(count)" }

        /// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`…
        static func ordinal(_ number: Int) -> String {
            let suffix: String
            switch (number % 10, number % 100) {
            case (_, 11...13): suffix = "th"
            case (1, _): suffix = "st"
            case (2, _): suffix = "nd"
            case (3, _): suffix = "rd"
            default: suffix = "th"
            }
            return "\(number)\(suffix)"
        }
    }

    /// How people name the pipeline: the call site of its end (`File.swift:42`), else its
    /// `.lifeline` label, else the end subscriber's short type and id (`Sink #7`). Pipelines
    /// that would share a name are told apart by their ``repetition``, in the order of their
    /// first events: `Rows.swift:63 (1st of 2)`, `Rows.swift:63 (2nd of 2)`.
    public let name: String
    /// The `.lifeline` label of the pipeline's end, or of its most downstream labelled hop.
    public let label: String?
    /// Where the pipeline was written, as `File.swift:42`, when the log records it.
    public let sourceLocation: String?
    /// How many values the end subscriber received.
    public let values: Int
    /// Where the pipeline stood when recording stopped.
    public let state: State
    /// The earlier pipelines whose shared upstream (`share()`, `multicast`) this one
    /// subscribed to: that upstream's hops are counted in the pipeline that connected it.
    public let sharesUpstreamWith: [ID]
    /// Which of the pipelines made at the same place (or, with no place, with the same label)
    /// this one is, when there are several; `nil` when its name is its own.
    public let repetition: Repetition?
    /// What the pipeline waits on when its state is ``State/waiting``: the stage where its
    /// `waits-on` chain ends (``WaitsOnRule``) and why, in a few words, as `PassthroughSubject
    /// #2: nothing was sent to it`; `nil` in any other state.
    public let waitsOn: String?

    /// The same pipeline told apart from the others that share its name.
    func repeated(_ repetition: Repetition) -> Pipeline {
        Pipeline(
            id: id, end: end, lifecycles: lifecycles, objects: objects, events: events, name: "\(name) (\(repetition))",
            label: label, sourceLocation: sourceLocation, values: values, state: state, sharesUpstreamWith: sharesUpstreamWith,
            repetition: repetition, waitsOn: waitsOn
        )
    }
}
