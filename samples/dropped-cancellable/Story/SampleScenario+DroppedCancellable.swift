#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

extension SampleScenario {
    /// `_ = publisher.sink { … }` cancels the subscription at once.
    public static let droppedCancellable = SampleScenario(
        name: "dropped-cancellable",
        title: "_ = subject.sink { … } cancels at once",
        summary: """
            Two sinks on one PassthroughSubject. The first sink's AnyCancellable is kept; the \
            second's is thrown away with `_ =`, so it is released as soon as sink returns and \
            cancels its subscription right there, before the subject sends anything. When the \
            subject sends 1, only the kept sink receives it. A correct analysis finds \
            cancelled-immediately for the second sink: its subscription was cancelled right \
            after the subscribe call, with no value delivered. The kept sink is correct.
            """,
        expectedDiagnoses: ["cancelled-immediately"],
        run: { console in
            let subject = PassthroughSubject<Int, Never>()
            let kept = subject.sink { value in console.print("kept sink received \(value)") }
            console.print("The kept sink's AnyCancellable is stored")
            _ = subject.sink { value in console.print("dropped sink received \(value)") }
            console.print("The dropped sink's AnyCancellable was discarded")
            console.print("subject.send(1)")
            subject.send(1)
            console.print("subject.send(completion: .finished)")
            subject.send(completion: .finished)
            withExtendedLifetime(kept) {}
        }
    )
}
