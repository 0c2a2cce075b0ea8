import LifelineSamples
import Testing

@Suite("The schedulers story")
struct SchedulerStoryTests {
    private static let headers = [
        "receive(on: lifeline.samples.background)",
        "subscribe(on: lifeline.samples.background)",
        "BusyPublisher on the calling thread",
        "BusyPublisher with subscribe(on: lifeline.samples.background)"
            + " and receive(on: lifeline.samples.ui)",
        "Releasing 4 cancellables",
    ]

    private func section(_ index: Int, of transcript: ConsoleTranscript) -> ConsoleTranscript {
        transcript.section(after: Self.headers[index], before: Array(Self.headers[(index + 1)...]))
    }

    @Test("receive(on:) moves everything after it to the background queue")
    func receiveOn() {
        let transcript = ConsoleTranscript(running: .schedulers)
        #expect(section(0, of: transcript).lines == [
            "map before receive(on:): 1 on the calling thread",
            "map after receive(on:): 10 on queue lifeline.samples.background",
            "sink: 11 on queue lifeline.samples.background",
            "sink: finished on queue lifeline.samples.background",
        ])
    }

    @Test("subscribe(on:) moves the subscription, and Just's delivery, to the background queue")
    func subscribeOn() {
        let transcript = ConsoleTranscript(running: .schedulers)
        #expect(section(1, of: transcript).lines == [
            "sink(receiveValue:) returned on the calling thread",
            "map: 1 on queue lifeline.samples.background",
            "sink: 10 on queue lifeline.samples.background",
        ])
    }

    @Test("BusyPublisher subscribed directly blocks the caller: the value comes before Hello")
    func busyPublisherBlocksTheCaller() {
        let transcript = ConsoleTranscript(running: .schedulers)
        #expect(section(2, of: transcript).lines == [
            "BusyPublisher is busy for 50 ms on the calling thread",
            "Received value on the calling thread",
            "Hello",
        ])
    }

    @Test("BusyPublisher with subscribe(on:) leaves the caller free: Hello comes before the value")
    func busyPublisherOnBackgroundQueue() {
        let transcript = ConsoleTranscript(running: .schedulers)
        #expect(section(3, of: transcript).lines == [
            "Hello",
            "BusyPublisher is busy for 50 ms on queue lifeline.samples.background",
            "Received value on queue lifeline.samples.ui",
        ])
    }
}
