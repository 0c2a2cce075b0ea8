import OpenCombineShim
import Testing
import Lifeline

extension RecordingTests {
    /// `.lifeline`'s proxy subscriber holds its downstream by hand (a box it retains once and
    /// releases in its deinit): the downstream still dies exactly when it dies untraced, when the
    /// pipeline completes, when the downstream cancels inside `receive(_:)`, when the caller
    /// cancels, and when the upstream lets go of it.
    @Suite struct OperatorLifetimeTests {
        enum Mode: String, CaseIterable { case untraced, operatorOnly, automatic }

        enum Ending: String, CaseIterable {
            /// The subject finishes after two values; the subscriber drops its subscription then.
            case completion
            /// The subscriber cancels, and drops its subscription, while it receives the second value.
            case cancelInsideReceive
            /// The subscriber never keeps its subscription: the subject alone holds the chain, until
            /// it finishes after the third value.
            case upstreamLetsGo
            /// The caller cancels the subscriber's subscription after the second value.
            case callerCancels
            /// A sink's cancellable, dropped by the caller after the second value.
            case sinkDropped
        }

        /// Writes when it dies.
        final class Token {
            let journal: Journal
            init(journal: Journal) { self.journal = journal }
            deinit { journal.write("deinit token") }
        }

        final class WatchedSubscriber: Subscriber {
            typealias Input = Int
            typealias Failure = Never

            let journal: Journal
            let ending: Ending
            var subscription: Subscription?

            init(journal: Journal, ending: Ending) {
                self.journal = journal
                self.ending = ending
            }

            deinit { journal.write("deinit subscriber") }

            func receive(subscription: Subscription) {
                journal.write("received subscription")
                if ending != .upstreamLetsGo { self.subscription = subscription }
                subscription.request(.unlimited)
            }

            func receive(_ input: Int) -> Subscribers.Demand {
                journal.write("received \(input)")
                if ending == .cancelInsideReceive && input == 2 {
                    subscription?.cancel()
                    subscription = nil
                    journal.write("cancelled inside receive")
                }
                return .none
            }

            func cancel() {
                subscription?.cancel()
                subscription = nil
            }

            func receive(completion: Subscribers.Completion<Never>) {
                journal.write("received completion")
                subscription = nil
            }
        }

        /// What the program observably did, deaths included, in order.
        func run(_ ending: Ending, mode: Mode) throws -> [String] {
            let journal = Journal()
            let body = {
                var subject: PassthroughSubject<Int, Never>? = PassthroughSubject()
                var cancellable: AnyCancellable?
                weak var watched: WatchedSubscriber?
                do {
                    let traced: AnyPublisher<Int, Never> = mode == .operatorOnly
                        ? subject!.lifeline("subject").map { $0 }.lifeline("map").eraseToAnyPublisher()
                        : subject!.map { $0 }.eraseToAnyPublisher()
                    if ending == .sinkDropped {
                        let token = Token(journal: journal)
                        cancellable = traced.sink { [token] value in withExtendedLifetime(token) { journal.write("sink \(value)") } }
                    } else {
                        let subscriber = WatchedSubscriber(journal: journal, ending: ending)
                        watched = subscriber
                        traced.subscribe(subscriber)
                    }
                }
                journal.write("subscribed")
                for value in 1...3 {
                    if value == 3 && ending == .completion { subject?.send(completion: .finished) }
                    if value == 3 && ending == .sinkDropped { cancellable = nil }
                    if value == 3 && ending == .callerCancels { watched?.cancel() }
                    journal.write("sending \(value)")
                    subject?.send(value)
                }
                if ending == .upstreamLetsGo {
                    journal.write("finishing")
                    subject?.send(completion: .finished)
                }
                journal.write("letting go of the subject")
                subject = nil
                journal.write("let go of the subject")
                _ = cancellable
            }
            switch mode {
            case .untraced: body()
            case .operatorOnly: _ = try Lifeline.record(options: RecordingOptions(automatic: false), body)
            case .automatic: _ = try Lifeline.record(body)
            }
            return journal.entries
        }

        @Test(arguments: Ending.allCases)
        func theDownstreamDiesWhenItDiesUntraced(ending: Ending) throws {
            let untraced = try run(ending, mode: .untraced)
            let died = untraced.contains("deinit subscriber") || untraced.contains("deinit token")
            #expect(died, "\(untraced)")
            #expect(try run(ending, mode: .operatorOnly) == untraced)
            #expect(try run(ending, mode: .automatic) == untraced)
        }
    }
}
