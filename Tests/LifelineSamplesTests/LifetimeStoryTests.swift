import LifelineSamples
import Testing

@Suite("The lifetime stories: dropped-cancellable and retain-cycle")
struct LifetimeStoryTests {
    @Test("dropped-cancellable: only the sink whose cancellable was kept receives the value")
    func droppedCancellable() {
        let transcript = ConsoleTranscript(running: .droppedCancellable)
        #expect(transcript.containsInOrder(["subject.send(1)", "kept sink received 1"]))
        #expect(!transcript.containsLine(startingWith: "dropped sink received"))
    }

    @Test("retain-cycle: the strong-self view model never deinits and still receives names")
    func strongSelfLeaks() {
        let strong = ConsoleTranscript(running: .retainCycle)
            .section(
                after: "self captured strongly in the sink", before: ["[weak self] in the sink"])
        #expect(strong.lines == [
            #"strong-self view model shows "Ada""#,
            "Releasing the last outside reference to the view model",
            "The view model is still alive",
            #"names.send("Grace")"#,
            #"strong-self view model shows "Grace""#,
        ])
    }

    @Test("retain-cycle: the [weak self] view model deinits when released, then receives nothing")
    func weakSelfIsFreed() {
        let weak = ConsoleTranscript(running: .retainCycle)
            .section(after: "[weak self] in the sink")
        #expect(weak.lines == [
            #"weak-self view model shows "Ada""#,
            "Releasing the last outside reference to the view model",
            "deinit weak-self view model",
            "The view model is gone",
            #"names.send("Grace")"#,
        ])
    }
}
