import Foundation
import OpenCombineShim

/// A class whose property `assign(to:on:)` writes.
private final class Gauge {
    var reading = 0 {
        didSet { outcome?.note(reading) }
    }
    let outcome: PipelineOutcome?

    init(_ outcome: PipelineOutcome) {
        self.outcome = outcome
    }
}

/// Where `print(_:to:)` writes: nowhere, so the tests print nothing.
private struct DiscardedText: TextOutputStream {
    mutating func write(_ string: String) {}
}

/// A class with a `@Published` property.
private final class Settings: ObservableObject {
    @Published var volume = 1
}

/// A subscriber that asks for one value at a time, by `request(_:)` again and again: demand
/// is additive, and asking again is allowed.
private final class OneAtATime: Subscriber {
    typealias Input = Int
    typealias Failure = Never

    let outcome: PipelineOutcome
    private var subscription: (any Subscription)?

    init(_ outcome: PipelineOutcome) {
        self.outcome = outcome
    }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        outcome.note(input)
        subscription?.request(.max(1))
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        outcome.note(completion)
        subscription = nil
    }
}

extension OperatorUse {
    /// The no-false-positive matrix: OpenCombine's publishers, subjects and operators, each
    /// in correct use. OpenCombine 0.14.0 has no `merge` and no `combineLatest`.
    static let matrix: [OperatorUse] = subjects + transforming + filtering + reducing + timing + scheduling
        + sharing + failing + subscribers + composing + more

    static let subjects: [OperatorUse] = [
        subject("PassthroughSubject", sending: [1, 2], expected: ["1", "2", "finished"]) { $0.eraseToAnyPublisher() },
        OperatorUse("CurrentValueSubject", expected: ["0", "1", "finished"]) { outcome in
            let subject = CurrentValueSubject<Int, Never>(0)
            let cancellable = subject.sink(into: outcome)
            subject.send(1)
            subject.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("Future resolved later", expected: ["7", "finished"]) { outcome in
            var resolve: ((Result<Int, Never>) -> Void)?
            let future = Future<Int, Never> { resolve = $0 }
            let cancellable = future.sink(into: outcome)
            resolve?(.success(7))
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("Just", expected: ["1", "finished"]) { outcome in
            withExtendedLifetime(Just(1).sink(into: outcome)) {}
        },
        OperatorUse("Empty", expected: ["finished"]) { outcome in
            withExtendedLifetime(Empty<Int, Never>().sink(into: outcome)) {}
        },
        OperatorUse("Fail", expected: ["failure(boom)"]) { outcome in
            withExtendedLifetime(Fail<Int, Boom>(error: Boom()).sink(into: outcome)) {}
        },
        OperatorUse("Deferred", expected: ["2", "finished"]) { outcome in
            withExtendedLifetime(Deferred { Just(2) }.sink(into: outcome)) {}
        },
        OperatorUse("Sequence publisher", expected: ["1", "2", "3", "finished"]) { outcome in
            withExtendedLifetime([1, 2, 3].publisher.sink(into: outcome)) {}
        },
        OperatorUse("Record", expected: ["1", "2", "finished"]) { outcome in
            let record = Record<Int, Never>(output: [1, 2], completion: .finished)
            withExtendedLifetime(record.sink(into: outcome)) {}
        },
        OperatorUse("@Published", expected: ["1", "5", "finished"]) { outcome in
            var settings: Settings? = Settings()
            let cancellable = settings?.$volume.sink(into: outcome)
            settings?.volume = 5
            settings = nil
            outcome.note(Subscribers.Completion<Never>.finished)
            cancellable?.cancel()
        },
    ]

    static let transforming: [OperatorUse] = [
        subject("map", sending: [1, 2], expected: ["10", "20", "finished"]) { $0.map { $0 * 10 }.eraseToAnyPublisher() },
        OperatorUse("tryMap", expected: ["1", "failure(boom)"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.tryMap { value -> Int in
                if value > 1 { throw Boom() }
                return value
            }.sink(into: outcome)
            subject.send(1)
            subject.send(2)
            withExtendedLifetime(cancellable) {}
        },
        subject("compactMap", sending: [1, 2, 3], expected: ["1", "3", "finished"]) {
            $0.compactMap { $0 == 2 ? nil : $0 }.eraseToAnyPublisher()
        },
        subject("scan", sending: [1, 2, 3], expected: ["1", "3", "6", "finished"]) { $0.scan(0, +).eraseToAnyPublisher() },
        OperatorUse("flatMap(maxPublishers: .max(1))", expected: ["10", "11", "20", "finished"]) { outcome in
            let outer = PassthroughSubject<Int, Never>()
            let children = [PassthroughSubject<Int, Never>(), PassthroughSubject<Int, Never>()]
            let cancellable = outer.flatMap(maxPublishers: .max(1)) { children[$0] }.sink(into: outcome)
            outer.send(0)
            children[0].send(10)
            children[0].send(11)
            children[0].send(completion: .finished)
            outer.send(1)
            children[1].send(20)
            outer.send(completion: .finished)
            children[1].send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("switchToLatest", expected: ["1", "3", "finished"]) { outcome in
            let outer = PassthroughSubject<PassthroughSubject<Int, Never>, Never>()
            let first = PassthroughSubject<Int, Never>(), second = PassthroughSubject<Int, Never>()
            let cancellable = outer.switchToLatest().sink(into: outcome)
            outer.send(first)
            first.send(1)
            outer.send(second)
            first.send(2)
            second.send(3)
            outer.send(completion: .finished)
            second.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("zip", expected: ["(1, \"a\")", "(2, \"b\")", "finished"]) { outcome in
            let numbers = PassthroughSubject<Int, Never>(), letters = PassthroughSubject<String, Never>()
            let cancellable = numbers.zip(letters).sink(into: outcome)
            numbers.send(1)
            numbers.send(2)
            letters.send("a")
            letters.send("b")
            numbers.send(completion: .finished)
            letters.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("append", expected: ["1", "2", "3", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.append(Just(3)).sink(into: outcome)
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        },
        subject("prepend", sending: [1], expected: ["0", "1", "finished"]) { $0.prepend(0).eraseToAnyPublisher() },
        subject("handleEvents", sending: [1], expected: ["1", "finished"]) { $0.handleEvents(receiveOutput: { _ in }).eraseToAnyPublisher() },
        subject("replaceNil", sending: [1, 2], expected: ["1", "0", "finished"]) {
            $0.map { $0 == 2 ? nil : $0 }.replaceNil(with: 0).eraseToAnyPublisher()
        },
        subject("replaceEmpty", sending: [], expected: ["9", "finished"]) { $0.replaceEmpty(with: 9).eraseToAnyPublisher() },
    ]

    static let filtering: [OperatorUse] = [
        subject("filter", sending: [1, 2, 3, 4], expected: ["2", "4", "finished"]) { $0.filter { $0.isMultiple(of: 2) }.eraseToAnyPublisher() },
        subject("removeDuplicates", sending: [1, 1, 2, 2, 1], expected: ["1", "2", "1", "finished"]) {
            $0.removeDuplicates().eraseToAnyPublisher()
        },
        subject("prefix", sending: [1, 2, 3], expected: ["1", "2", "finished"]) { $0.prefix(2).eraseToAnyPublisher() },
        subject("prefix(while:)", sending: [1, 2, 3], expected: ["1", "finished"]) { $0.prefix { $0 < 2 }.eraseToAnyPublisher() },
        subject("dropFirst", sending: [1, 2, 3], expected: ["2", "3", "finished"]) { $0.dropFirst().eraseToAnyPublisher() },
        subject("drop(while:)", sending: [1, 2, 1], expected: ["2", "1", "finished"]) { $0.drop { $0 < 2 }.eraseToAnyPublisher() },
        subject("first", sending: [5, 6], expected: ["5", "finished"]) { $0.first().eraseToAnyPublisher() },
        subject("first(where:)", sending: [5, 6, 7], expected: ["6", "finished"]) { $0.first { $0 > 5 }.eraseToAnyPublisher() },
        subject("last", sending: [1, 2], expected: ["2", "finished"]) { $0.last().eraseToAnyPublisher() },
        subject("output(at:)", sending: [4, 5, 6], expected: ["5", "finished"]) { $0.output(at: 1).eraseToAnyPublisher() },
        OperatorUse("prefix(untilOutputFrom:)", expected: ["1", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>(), stop = PassthroughSubject<Void, Never>()
            let cancellable = subject.prefix(untilOutputFrom: stop).sink(into: outcome)
            subject.send(1)
            stop.send(())
            subject.send(2)
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("drop(untilOutputFrom:)", expected: ["2", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>(), start = PassthroughSubject<Void, Never>()
            let cancellable = subject.drop(untilOutputFrom: start).sink(into: outcome)
            subject.send(1)
            start.send(())
            subject.send(2)
            subject.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        },
        subject("ignoreOutput", sending: [1, 2], expected: ["finished"]) { $0.ignoreOutput().eraseToAnyPublisher() },
    ]

    static let reducing: [OperatorUse] = [
        subject("collect", sending: [1, 2, 3], expected: ["[1, 2, 3]", "finished"]) { $0.collect().eraseToAnyPublisher() },
        subject("collect(2)", sending: [1, 2, 3], expected: ["[1, 2]", "[3]", "finished"]) { $0.collect(2).eraseToAnyPublisher() },
        subject("reduce", sending: [1, 2, 3], expected: ["6", "finished"]) { $0.reduce(0, +).eraseToAnyPublisher() },
        subject("count", sending: [1, 2, 3], expected: ["3", "finished"]) { $0.count().eraseToAnyPublisher() },
        subject("max", sending: [1, 3, 2], expected: ["3", "finished"]) { $0.max().eraseToAnyPublisher() },
        subject("contains", sending: [1, 2, 3], expected: ["true", "finished"]) { $0.contains(2).eraseToAnyPublisher() },
        subject("allSatisfy", sending: [1, 2], expected: ["true", "finished"]) { $0.allSatisfy { $0 > 0 }.eraseToAnyPublisher() },
    ]

    static let timing: [OperatorUse] = [
        OperatorUse("debounce", expected: ["2", "3", "finished"]) { outcome in
            let scheduler = VirtualTimeScheduler()
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.debounce(for: .seconds(1), scheduler: scheduler).sink(into: outcome)
            subject.send(1)
            scheduler.advance(by: .milliseconds(500))
            subject.send(2)
            scheduler.advance(by: .seconds(2))
            subject.send(3)
            scheduler.advance(by: .seconds(2))
            subject.send(completion: .finished)
            scheduler.advance(by: .seconds(1))
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("throttle", expected: ["1", "3", "finished"]) { outcome in
            let scheduler = VirtualTimeScheduler()
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.throttle(for: .seconds(1), scheduler: scheduler, latest: true).sink(into: outcome)
            subject.send(1)
            scheduler.advance(by: .milliseconds(100))
            subject.send(2)
            subject.send(3)
            scheduler.advance(by: .seconds(2))
            subject.send(completion: .finished)
            scheduler.advance(by: .seconds(1))
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("timeout", expected: ["1", "finished"]) { outcome in
            let scheduler = VirtualTimeScheduler()
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.timeout(.seconds(1), scheduler: scheduler).sink(into: outcome)
            subject.send(1)
            scheduler.advance(by: .seconds(2))
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("delay", expected: ["1", "2", "finished"]) { outcome in
            let scheduler = VirtualTimeScheduler()
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.delay(for: .seconds(1), scheduler: scheduler).sink(into: outcome)
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
            scheduler.advance(by: .seconds(2))
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("buffer", expected: ["1", "2", "3", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).sink(into: outcome)
            subject.send(1)
            subject.send(2)
            subject.send(3)
            subject.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        },
    ]

    static let scheduling: [OperatorUse] = [
        onQueue("receive(on:)", expected: ["10", "20", "finished"]) { outcome, queue, finished in
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.map { $0 * 10 }.receive(on: queue).sink(
                receiveCompletion: { outcome.note($0); finished.signal() },
                receiveValue: { outcome.note($0) }
            )
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
            finished.wait()
            finished.signal()
            withExtendedLifetime(cancellable) {}
        },
        onQueue("subscribe(on:)", expected: ["1", "2", "finished"]) { outcome, queue, finished in
            let cancellable = [1, 2].publisher.subscribe(on: queue).sink(
                receiveCompletion: { outcome.note($0); finished.signal() },
                receiveValue: { outcome.note($0) }
            )
            finished.wait()
            finished.signal()
            withExtendedLifetime(cancellable) {}
        },
    ]

    static let sharing: [OperatorUse] = [
        OperatorUse("share", expected: ["1", "1", "2", "2", "finished", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let shared = subject.share()
            let first = shared.sink(into: outcome), second = shared.sink(into: outcome)
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
            withExtendedLifetime((first, second)) {}
        },
        OperatorUse("multicast + autoconnect", expected: ["1", "2", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let multicast = subject.multicast(subject: PassthroughSubject<Int, Never>()).autoconnect()
            let cancellable = multicast.sink(into: outcome)
            subject.send(1)
            subject.send(2)
            subject.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("makeConnectable + connect", expected: ["1", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let connectable = subject.makeConnectable()
            let cancellable = connectable.sink(into: outcome)
            let connection = connectable.connect()
            subject.send(1)
            subject.send(completion: .finished)
            withExtendedLifetime((cancellable, connection)) {}
        },
    ]

    static let failing: [OperatorUse] = [
        OperatorUse("catch", expected: ["1", "0", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Boom>()
            let cancellable = subject.catch { _ in Just(0) }.sink(into: outcome)
            subject.send(1)
            subject.send(completion: .failure(Boom()))
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("retry", expected: ["1", "2", "finished"]) { outcome in
            var attempts = 0
            let flaky = Deferred { () -> AnyPublisher<Int, Boom> in
                attempts += 1
                return attempts == 1
                    ? Fail(error: Boom()).eraseToAnyPublisher()
                    : [1, 2].publisher.setFailureType(to: Boom.self).eraseToAnyPublisher()
            }
            withExtendedLifetime(flaky.retry(2).sink(into: outcome)) {}
        },
        OperatorUse("replaceError", expected: ["1", "-1", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Boom>()
            let cancellable = subject.replaceError(with: -1).sink(into: outcome)
            subject.send(1)
            subject.send(completion: .failure(Boom()))
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("mapError", expected: ["failure(boom)"]) { outcome in
            let failing = Fail<Int, Boom>(error: Boom()).mapError { $0 as any Error }
            withExtendedLifetime(failing.sink(into: outcome)) {}
        },
        OperatorUse("setFailureType", expected: ["1", "finished"]) { outcome in
            withExtendedLifetime(Just(1).setFailureType(to: Boom.self).sink(into: outcome)) {}
        },
    ]

    static let subscribers: [OperatorUse] = [
        OperatorUse("assign(to:on:)", expected: ["1", "2"]) { outcome in
            let gauge = Gauge(outcome)
            withExtendedLifetime([1, 2].publisher.assign(to: \.reading, on: gauge)) {}
        },
        OperatorUse("a subscriber that requests .max(1) again and again", expected: ["1", "2", "3", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let subscriber = OneAtATime(outcome)
            subject.subscribe(subscriber)
            subject.send(1)
            subject.send(2)
            subject.send(3)
            subject.send(completion: .finished)
        },
        OperatorUse("AnyCancellable cancelled mid-stream", expected: ["1"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            var cancellables = Set<AnyCancellable>()
            subject.sink(into: outcome).store(in: &cancellables)
            subject.send(1)
            cancellables.removeAll()
            subject.send(2)
        },
    ]

    /// Shapes real code builds out of the operators: nested and re-entrant subscriptions,
    /// work crossing threads, several subscribers on one subject.
    static let composing: [OperatorUse] = [
        OperatorUse("_ = Just(1).sink, which completes inside the subscribe call", expected: ["1", "finished"]) { outcome in
            _ = Just(1).sink(into: outcome)
        },
        OperatorUse("flatMap with synchronous children", expected: ["1", "2", "3", "finished"]) { outcome in
            withExtendedLifetime([1, 2, 3].publisher.flatMap { Just($0) }.sink(into: outcome)) {}
        },
        OperatorUse("flatMap over Deferred Futures", expected: ["2", "4", "finished"]) { outcome in
            let doubled = [1, 2].publisher.flatMap { value in
                Deferred { Future<Int, Never> { promise in promise(.success(value * 2)) } }
            }
            withExtendedLifetime(doubled.sink(into: outcome)) {}
        },
        OperatorUse("a subscription made inside a sink", expected: ["1", "10", "finished", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            var inner: AnyCancellable?
            let outer = subject.sink(
                receiveCompletion: { outcome.note($0) },
                receiveValue: { value in
                    outcome.note(value)
                    inner = Just(value * 10).delay(for: .zero, scheduler: ImmediateScheduler.shared).sink(into: outcome)
                }
            )
            subject.send(1)
            subject.send(completion: .finished)
            withExtendedLifetime((outer, inner)) {}
        },
        OperatorUse("a sink that sends to its own subject", expected: ["1", "2", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.sink(
                receiveCompletion: { outcome.note($0) },
                receiveValue: { value in
                    outcome.note(value)
                    if value == 1 { subject.send(2) } else { subject.send(completion: .finished) }
                }
            )
            subject.send(1)
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("CurrentValueSubject with two subscribers, one cancelled", expected: ["0", "0", "1", "1", "2", "finished"]) { outcome in
            let subject = CurrentValueSubject<Int, Never>(0)
            let staying = subject.sink(into: outcome)
            let leaving = subject.sink(into: outcome)
            subject.send(1)
            leaving.cancel()
            subject.send(2)
            subject.send(completion: .finished)
            withExtendedLifetime(staying) {}
        },
        OperatorUse("zip with a side that finishes empty", expected: ["finished"]) { outcome in
            withExtendedLifetime(Just(1).zip(Empty<Int, Never>()).sink(into: outcome)) {}
        },
        OperatorUse("share with a subscriber that arrives after the completion", expected: ["1", "finished", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let shared = subject.share()
            let early = shared.sink(into: outcome)
            subject.send(1)
            subject.send(completion: .finished)
            let late = shared.sink(into: outcome)
            withExtendedLifetime((early, late)) {}
        },
        OperatorUse("catch switching to a subject that finishes later", expected: ["1", "2", "finished"]) { outcome in
            let failing = PassthroughSubject<Int, Boom>()
            let fallback = PassthroughSubject<Int, Never>()
            let cancellable = failing.catch { _ in fallback }.sink(into: outcome)
            failing.send(1)
            failing.send(completion: .failure(Boom()))
            fallback.send(2)
            fallback.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("a Sequence publisher paced one value at a time", expected: ["1", "2", "3", "finished"]) { outcome in
            [1, 2, 3].publisher.subscribe(OneAtATime(outcome))
        },
        onQueue("Future resolved on another thread", expected: ["5", "finished"]) { outcome, queue, finished in
            let future = Future<Int, Never> { promise in
                // Future's promise takes Future's own lock, so it may be called from any thread.
                nonisolated(unsafe) let resolve = promise
                queue.async { resolve(.success(5)) }
            }
            let cancellable = future.sink(
                receiveCompletion: { outcome.note($0); finished.signal() },
                receiveValue: { outcome.note($0) }
            )
            finished.wait()
            finished.signal()
            withExtendedLifetime(cancellable) {}
        },
        onQueue("sends from two threads, serialized by a lock", expected: ["1", "2", "finished"]) { outcome, queue, finished in
            let subject = PassthroughSubject<Int, Never>()
            let lock = NSLock()
            let cancellable = subject.sink(
                receiveCompletion: { outcome.note($0); finished.signal() },
                receiveValue: { outcome.note($0) }
            )
            lock.withLock { subject.send(1) }
            queue.sync { lock.withLock { subject.send(2) } }
            lock.withLock { subject.send(completion: .finished) }
            finished.wait()
            finished.signal()
            withExtendedLifetime(cancellable) {}
        },
        onQueue("subscribe(on:) and receive(on:) on two queues", expected: ["1", "finished"]) { outcome, queue, finished in
            let delivery = DispatchQueue(label: "lifeline.tests.delivery")
            let cancellable = Just(1).subscribe(on: queue).receive(on: delivery).sink(
                receiveCompletion: { outcome.note($0); finished.signal() },
                receiveValue: { outcome.note($0) }
            )
            finished.wait()
            delivery.sync {}
            finished.signal()
            withExtendedLifetime(cancellable) {}
        },
    ]

    /// More operators and subscriber shapes: the `try` variants, key paths, wrappers, and
    /// the time operators that measure.
    static let more: [OperatorUse] = [
        subject("map(keyPath)", sending: [1, 2], expected: ["1", "2", "finished"]) { $0.map(\.magnitude).eraseToAnyPublisher() },
        subject("tryFilter", sending: [1, 2], expected: ["2", "finished"]) {
            $0.tryFilter { $0 > 1 }.replaceError(with: -1).eraseToAnyPublisher()
        },
        subject("tryScan", sending: [1, 2], expected: ["1", "3", "finished"]) {
            $0.tryScan(0, +).replaceError(with: -1).eraseToAnyPublisher()
        },
        subject("print(to:)", sending: [1], expected: ["1", "finished"]) {
            $0.print("numbers", to: DiscardedText()).eraseToAnyPublisher()
        },
        subject("breakpoint", sending: [1], expected: ["1", "finished"]) { $0.breakpoint().eraseToAnyPublisher() },
        OperatorUse("tryCatch", expected: ["1", "0", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Boom>()
            let cancellable = subject.tryCatch { _ in Just(0) }.sink(into: outcome)
            subject.send(1)
            subject.send(completion: .failure(Boom()))
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("zip of three", expected: ["(1, 2, 3)", "finished"]) { outcome in
            withExtendedLifetime(Just(1).zip(Just(2), Just(3)).sink(into: outcome)) {}
        },
        OperatorUse("Optional.Publisher", expected: ["5", "finished"]) { outcome in
            withExtendedLifetime(Optional(5).publisher.sink(into: outcome)) {}
        },
        OperatorUse("eraseToAnyPublisher and AnySubscriber", expected: ["1", "finished"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { outcome.note($0) }, receiveValue: { outcome.note($0) })
            subject.eraseToAnyPublisher().subscribe(AnySubscriber(sink))
            subject.send(1)
            subject.send(completion: .finished)
        },
        OperatorUse("Subscribers.Sink made by hand and cancelled", expected: ["1"]) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { outcome.note($0) }, receiveValue: { outcome.note($0) })
            subject.subscribe(sink)
            subject.send(1)
            sink.cancel()
            subject.send(2)
        },
        OperatorUse("assign(to: &$published)", expected: ["1", "2", "3"]) { outcome in
            let settings = Settings()
            let cancellable = settings.$volume.dropFirst().sink { outcome.note($0) }
            outcome.note(settings.volume)
            [2, 3].publisher.assign(to: &settings.$volume)
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("switchToLatest over Just", expected: ["1", "2", "finished"]) { outcome in
            withExtendedLifetime([1, 2].publisher.map { Just($0) }.switchToLatest().sink(into: outcome)) {}
        },
        OperatorUse("flatMap with interleaved children", expected: ["a1", "b1", "a2", "finished"]) { outcome in
            let outer = PassthroughSubject<PassthroughSubject<String, Never>, Never>()
            let a = PassthroughSubject<String, Never>(), b = PassthroughSubject<String, Never>()
            let cancellable = outer.flatMap { $0 }.sink(into: outcome)
            outer.send(a)
            outer.send(b)
            a.send("a1")
            b.send("b1")
            a.send("a2")
            outer.send(completion: .finished)
            a.send(completion: .finished)
            b.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("timeout that does not fire", expected: ["1", "2", "finished"]) { outcome in
            let scheduler = VirtualTimeScheduler()
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.timeout(.seconds(5), scheduler: scheduler).sink(into: outcome)
            subject.send(1)
            scheduler.advance(by: .seconds(1))
            subject.send(2)
            subject.send(completion: .finished)
            scheduler.advance(by: .seconds(10))
            withExtendedLifetime(cancellable) {}
        },
        OperatorUse("measureInterval", expected: ["true", "finished"]) { outcome in
            let scheduler = VirtualTimeScheduler()
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.measureInterval(using: scheduler).dropFirst().map { $0 == .seconds(2) }
                .sink(into: outcome)
            subject.send(1)
            scheduler.advance(by: .seconds(2))
            subject.send(2)
            subject.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        },
        onQueue("subscribe(on:) in front of a subject", expected: ["1", "finished"]) { outcome, queue, finished in
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = subject.subscribe(on: queue).sink(
                receiveCompletion: { outcome.note($0); finished.signal() },
                receiveValue: { outcome.note($0) }
            )
            // The subscribe runs on the queue, and the sink's request, scheduled from inside it,
            // runs after it: wait for both before sending.
            queue.sync {}
            queue.sync {}
            subject.send(1)
            subject.send(completion: .finished)
            finished.wait()
            finished.signal()
            withExtendedLifetime(cancellable) {}
        },
        onQueue("share in front of receive(on:)", expected: ["1", "1", "finished", "finished"]) { outcome, queue, finished in
            let subject = PassthroughSubject<Int, Never>()
            let shared = subject.share().receive(on: queue)
            let first = shared.sink(into: outcome), second = shared.sink(into: outcome)
            subject.send(1)
            subject.send(completion: .finished)
            queue.sync {}
            finished.signal()
            withExtendedLifetime((first, second)) {}
        },
    ]
}
