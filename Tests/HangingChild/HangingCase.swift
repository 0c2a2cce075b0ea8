#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif
import Dispatch

/// The hangs a test can ask the child for: each one a small program that waits for a value
/// its pipeline never delivers, and the same program fixed.
enum HangingCase: String, CaseIterable {
    /// A hand-written subscriber keeps its subscription and never asks for a value.
    case neverRequested = "never-requested"
    /// `first()` on a subject that was sent its value before anyone subscribed.
    case silentSubject = "silent-subject"
    /// A `Future` whose promise is not called when the load fails.
    case unkeptPromise = "unkept-promise"
    /// `zip` of two subjects, only one of which is ever sent a value.
    case zipOneSide = "zip-one-side"
    /// A `sink` whose closure waits for a signal that the code sending to it gives only once
    /// the send has returned: the same thread, so never.
    case blockedReceive = "blocked-receive"
    /// `flatMap(maxPublishers: .max(1))` whose inner publisher, a subject used as a one-shot,
    /// never completes, so the next request is never asked for.
    case unfinishedInner = "unfinished-inner"
    /// `receive(on:)` a queue that is blocked waiting for the value that queue would deliver.
    case blockedQueue = "blocked-queue"
    /// A hand-written subscription that drops the demand its subscriber's `receive(_:)`
    /// returns, read one value at a time.
    case ignoredDemand = "ignored-demand"

    /// Sets the case up, calling `delivered` when the pipeline delivers what the program waits
    /// for (only when `fixed`), and returns what keeps its pipeline alive.
    func run(fixed: Bool, delivered: @escaping @Sendable () -> Void) -> [AnyCancellable] {
        switch self {
        case .neverRequested:
            let replies = PassthroughSubject<Int, Never>()
            let reader = HandWrittenSubscriber(initialDemand: fixed ? .max(1) : .none, afterValue: .cancel, onEnd: delivered)
            replies.lifeline("reply reader").subscribe(reader)
            replies.send(200)
            return [AnyCancellable(reader)]
        case .silentSubject:
            let answers = PassthroughSubject<Int, Never>()
            if !fixed { answers.send(42) }
            let first = answers.first().lifeline("first answer").sink { _ in delivered() }
            if fixed { answers.send(42) }
            return [first]
        case .unkeptPromise:
            let profile = ProfileLoader(keepsEveryPromise: fixed).profile(id: 7)
                .lifeline("profile")
                .sink(receiveCompletion: { _ in delivered() }, receiveValue: { _ in delivered() })
            return [profile]
        case .zipOneSide:
            let prices = PassthroughSubject<Int, Never>()
            let quotes = PassthroughSubject<String, Never>()
            let pairs = prices.lifeline("prices")
                .zip(quotes.lifeline("quotes"))
                .lifeline("priced quotes")
                .sink(receiveCompletion: { _ in delivered() }, receiveValue: { _ in })
            prices.send(1)
            prices.send(2)
            if fixed {
                quotes.send("a")
                quotes.send("b")
                prices.send(completion: .finished)
                quotes.send(completion: .finished)
            }
            return [pairs]
        case .blockedReceive:
            let ticks = PassthroughSubject<Int, Never>()
            let logged = DispatchSemaphore(value: 0)
            let ticker = ticks.lifeline("ticker").sink(receiveCompletion: { _ in delivered() }) { _ in
                // The fix does not wait inside receive(_:). The hang never returns from here, so
                // it says it is ready itself, once its receive(_:) has begun.
                guard !fixed else { return }
                say("ready")
                logged.wait()
            }
            ticks.send(1)
            logged.signal()
            ticks.send(completion: .finished)
            return [ticker]
        case .unfinishedInner:
            let requests = PassthroughSubject<Int, Never>()
            let responses = requests
                .flatMap(maxPublishers: .max(1)) { id -> AnyPublisher<String, Never> in
                    // The hang answers with a subject that sends its value and never finishes.
                    fixed ? Just("response \(id)").eraseToAnyPublisher()
                        : CurrentValueSubject("response \(id)").eraseToAnyPublisher()
                }
                .lifeline("responses")
                .sink(receiveCompletion: { _ in delivered() }, receiveValue: { _ in })
            requests.send(1)
            requests.send(2)
            requests.send(completion: .finished)
            return [responses]
        case .blockedQueue:
            let results = PassthroughSubject<Int, Never>()
            let ui = DispatchQueue(label: "ui")
            let shown = DispatchSemaphore(value: 0)
            let display = results
                .receive(on: ui)
                .lifeline("display")
                .sink(receiveCompletion: { _ in delivered() }, receiveValue: { _ in shown.signal() })
            // The hang's job on the ui queue waits for a result that only the ui queue can show.
            let blocking = DispatchSemaphore(value: 0)
            ui.async {
                blocking.signal()
                if !fixed { shown.wait() }
            }
            blocking.wait()
            results.send(1)
            results.send(completion: .finished)
            return [display]
        case .ignoredDemand:
            let reader = HandWrittenSubscriber(initialDemand: .max(1), afterValue: .ask(.max(1)), onEnd: delivered)
            Countdown(start: 3, addsReturnedDemand: fixed).lifeline("countdown").subscribe(reader)
            return [AnyCancellable(reader)]
        }
    }
}
