import LifelineSamples
import Testing

@Suite("The URL stories: forgotten-subscription and its two fixes")
struct URLStoryTests {
    private static let value = #"Received value: Article(id: 1, title: "Understanding Combine")"#

    @Test("forgotten-subscription: the subscriber deinits after the handshake, and gets no value")
    func forgottenSubscription() {
        let transcript = ConsoleTranscript(running: .forgottenSubscription)
        #expect(transcript.containsInOrder([
            "Received subscription",
            "deinit subscriber",
            "makeTheRequest() returned",
            "The data task finished with nobody left to deliver its response to",
        ]))
        #expect(!transcript.containsLine(startingWith: "Received value"))
        #expect(!transcript.containsLine(startingWith: "Received completion"))
    }

    @Test("stored-subscription: value and completion arrive before the subscriber deinits")
    func storedSubscription() {
        let transcript = ConsoleTranscript(running: .storedSubscription)
        #expect(transcript.lines == [
            "Received subscription",
            "makeTheRequest() returned",
            Self.value,
            "Received completion finished",
            "deinit subscriber",
        ])
    }

    @Test("returned-cancellable: value and completion arrive, then the owner releases it")
    func returnedCancellable() {
        let transcript = ConsoleTranscript(running: .returnedCancellable)
        #expect(transcript.lines == [
            "ArticleScreen keeps the AnyCancellable",
            Self.value,
            "Received completion: finished",
            "Releasing ArticleScreen",
            "deinit ArticleScreen: its AnyCancellable goes with it",
        ])
    }
}
