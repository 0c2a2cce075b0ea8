#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

extension SampleScenario {
    /// Where values are delivered: receive(on:), subscribe(on:), and a publisher that blocks.
    public static let schedulers = SampleScenario(
        name: "schedulers",
        title: "receive(on:), subscribe(on:) and a BusyPublisher that blocks its caller",
        summary: """
            Four pipelines. receive(on:) moves delivery to the serial queue \
            lifeline.samples.background: the map before it runs on the calling thread, the \
            map after it and the sink run on the queue. subscribe(on:) moves the subscription \
            itself, and with it Just's whole delivery, to that queue. The seed's BusyPublisher \
            blocks whoever subscribes: subscribed directly, "Received value" comes before \
            "Hello"; with subscribe(on:) the calling thread goes on at once and "Hello" comes \
            first, and receive(on:) brings the value to lifeline.samples.ui, a serial queue \
            standing in for the main queue. The queues are held while the calling thread works \
            and then waited for, so every run is ordered the same. A correct analysis finds \
            demand-exceeded on the last pipeline: BusyPublisher ignores demand and sends 1 at \
            once, but under subscribe(on:) the sink's request is itself scheduled on the \
            background queue, behind the busy subscribe, so the value reaches subscribe(on:)'s \
            subscriber before any demand was requested from BusyPublisher's subscription. \
            Subscribed directly, the sink has already requested .unlimited, so that pipeline is \
            correct.
            """,
        expectedDiagnoses: ["demand-exceeded"],
        run: { console in
            let background = SampleQueue(label: "lifeline.samples.background")
            let ui = SampleQueue(label: "lifeline.samples.ui")
            var cancellables: [AnyCancellable] = []
            receiveOn(background, console: console, storingIn: &cancellables)
            subscribeOn(background, console: console, storingIn: &cancellables)
            busyPublisherOnCallingThread(console: console, storingIn: &cancellables)
            busyPublisherSubscribedOn(
                background, receivedOn: ui, console: console, storingIn: &cancellables)
            console.print("Releasing \(cancellables.count) cancellables")
            // subscribe(on:) cancels on its queue: hold the queues so that those cancels run
            // after every other release, and wait for them before the story ends.
            holding([background, ui], console: console) { cancellables.removeAll() }
        }
    )

    /// Calls `body` while `queues` are held, then lets each queue run in turn and waits for it.
    private static func holding(
        _ queues: [SampleQueue], console: SampleConsole, _ body: () -> Void
    ) {
        for queue in queues {
            queue.hold()
        }
        body()
        for queue in queues where !queue.releaseAndWait() {
            console.print("Timed out waiting for queue \(queue.label)")
        }
    }

    private static func receiveOn(
        _ background: SampleQueue, console: SampleConsole,
        storingIn cancellables: inout [AnyCancellable]
    ) {
        console.print("receive(on: \(background.label))")
        let subject = PassthroughSubject<Int, Never>()
        holding([background], console: console) {
            subject
                .map { value in
                    console.print(
                        "map before receive(on:): \(value) on \(SampleQueue.currentPlace)")
                    return value * 10
                }
                .receive(on: background.queue, options: background.schedulerOptions)
                .map { value in
                    console.print(
                        "map after receive(on:): \(value) on \(SampleQueue.currentPlace)")
                    return value + 1
                }
                .sink(
                    receiveCompletion: { completion in
                        console.print("sink: \(completion) on \(SampleQueue.currentPlace)")
                    },
                    receiveValue: { value in
                        console.print("sink: \(value) on \(SampleQueue.currentPlace)")
                    }
                )
                .store(in: &cancellables)
            subject.send(1)
            subject.send(completion: .finished)
        }
    }

    private static func subscribeOn(
        _ background: SampleQueue, console: SampleConsole,
        storingIn cancellables: inout [AnyCancellable]
    ) {
        console.print("subscribe(on: \(background.label))")
        holding([background], console: console) {
            Just(1)
                .subscribe(on: background.queue, options: background.schedulerOptions)
                .map { value in
                    console.print("map: \(value) on \(SampleQueue.currentPlace)")
                    return value * 10
                }
                .sink { value in
                    console.print("sink: \(value) on \(SampleQueue.currentPlace)")
                }
                .store(in: &cancellables)
            console.print("sink(receiveValue:) returned on \(SampleQueue.currentPlace)")
        }
    }

    private static func busyPublisherOnCallingThread(
        console: SampleConsole, storingIn cancellables: inout [AnyCancellable]
    ) {
        console.print("BusyPublisher on the calling thread")
        BusyPublisher(console: console)
            .sink { _ in console.print("Received value on \(SampleQueue.currentPlace)") }
            .store(in: &cancellables)
        console.print("Hello")
    }

    private static func busyPublisherSubscribedOn(
        _ background: SampleQueue, receivedOn ui: SampleQueue, console: SampleConsole,
        storingIn cancellables: inout [AnyCancellable]
    ) {
        console.print(
            "BusyPublisher with subscribe(on: \(background.label)) and receive(on: \(ui.label))")
        holding([background, ui], console: console) {
            BusyPublisher(console: console)
                .subscribe(on: background.queue, options: background.schedulerOptions)
                .receive(on: ui.queue, options: ui.schedulerOptions)
                .sink { _ in console.print("Received value on \(SampleQueue.currentPlace)") }
                .store(in: &cancellables)
            console.print("Hello")
        }
    }
}
