#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif
import LifelineLog

extension Publisher {
    /// Records this hop of the pipeline under a label: what the downstream subscriber sees.
    ///
    /// ```swift
    /// api.results
    ///     .lifeline("search results")
    ///     .sink { show($0) }
    /// ```
    ///
    /// When no recording runs, the operator subscribes the downstream directly and costs
    /// nothing. In automatic mode, where every hop is recorded anyway, it also subscribes the
    /// downstream directly and only names it: the downstream subscriber is declared with the
    /// label and source location, and each call of the hop is recorded once.
    ///
    /// When only `.lifeline(_:)` hops are recorded (`RecordingOptions(automatic: false)`), it
    /// places two small proxies in the chain: a subscriber that the upstream subscription
    /// holds and that holds the downstream, and a subscription that the downstream holds and
    /// that holds the upstream subscription. Ownership stays exactly as it was: the proxies add
    /// no reference the untraced chain lacks, and no cycle.
    ///
    /// - Parameters:
    ///   - label: The name of this hop in diagrams and diagnoses.
    ///   - file: The source file, filled in by the compiler.
    ///   - line: The source line, filled in by the compiler.
    public func lifeline(_ label: String, file: StaticString = #fileID, line: UInt = #line) -> Publishers.Lifeline<Self> {
        Publishers.Lifeline(upstream: self, label: label, sourceLocation: "\(file):\(line)")
    }
}

extension Publishers {
    /// A publisher that records the hop below it while Lifeline records. See
    /// `Publisher.lifeline(_:file:line:)`.
    public struct Lifeline<Upstream: Publisher>: Publisher, LabelledHopPublisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher this hop subscribes to.
        public let upstream: Upstream
        /// The hop's label.
        public let label: String
        /// Where the operator was applied, as `File.swift:42`.
        public let sourceLocation: String

        public func receive<Downstream: Subscriber>(subscriber: Downstream)
        where Downstream.Input == Output, Downstream.Failure == Failure {
            guard let session = RecordingSession.current, !session.options.automatic else {
                upstream.subscribe(subscriber)
                return
            }
            let hop = LifelineHop(session: session, label: label, sourceLocation: TraceSourceLocation(fileAndLine: sourceLocation))
            _ = session.callSites.subscribeBegins()
            let publisherID = hop.identify(upstream, role: .publisher)
            let subscriberID = hop.identify(subscriber, role: .subscriber, key: subscriber.combineIdentifier)
            session.record(.begin, .subscribe(publisher: publisherID, subscriber: subscriberID))
            upstream.subscribe(LifelineSubscriber(downstream: subscriber, id: subscriberID, hop: hop))
            let seq = session.record(.end, .subscribe(publisher: publisherID, subscriber: subscriberID))
            session.callSites.subscribeEnds()
            session.callEnded(at: seq, snapshotReason: .subscribe)
        }
    }
}

/// A `.lifeline(_:)` hop, as the automatic mode's hook sees it: the label and source location
/// to give the subscriber it subscribes.
protocol LabelledHopPublisher {
    var label: String { get }
    var sourceLocation: String { get }
}
