#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

extension SampleScenario {
    /// Combine's two built-in subscribers on a sequence publisher.
    public static let sinkAndAssign = SampleScenario(
        name: "sink-and-assign",
        title: "sink and assign(to:on:) on [1, 2, 3, 4, 5].publisher",
        summary: """
            The two subscribers Combine builds in, on the publisher of an array: \
            sink(receiveCompletion:receiveValue:) runs closures for each value and for the \
            completion, and assign(to:on:) writes each value to a property through a key \
            path. Both request .unlimited as soon as they are subscribed, so the sequence \
            delivers all five values and finishes during the subscribe call. The returned \
            AnyCancellables are kept until the story ends. A correct analysis finds nothing.
            """,
        expectedDiagnoses: [],
        run: { console in
            var cancellables: [AnyCancellable] = []

            console.print("sink(receiveCompletion:receiveValue:)")
            [1, 2, 3, 4, 5].publisher
                .sink(
                    receiveCompletion: { console.print("Completed with: \($0)") },
                    receiveValue: { console.print("Received value: \($0)") }
                )
                .store(in: &cancellables)

            console.print("assign(to:on:)")
            let printer = ValuePrinter(0, console: console)
            [1, 2, 3, 4, 5].publisher
                .assign(to: \.value, on: printer)
                .store(in: &cancellables)

            console.print("Releasing \(cancellables.count) cancellables")
            cancellables.removeAll()
        }
    )
}
