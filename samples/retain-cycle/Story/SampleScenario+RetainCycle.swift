#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

extension SampleScenario {
    /// A view model whose sink captures self strongly never deallocates.
    public static let retainCycle = SampleScenario(
        name: "retain-cycle",
        title: "A stored AnyCancellable whose sink captures self: strong versus [weak self]",
        summary: """
            A view model stores the AnyCancellable of a sink on a PassthroughSubject. In the \
            strong-self variant the sink's closure captures self, so view model, \
            AnyCancellable, sink and closure form a loop: after its last outside reference is \
            released the view model does not deinit, and it still shows the next name the \
            subject sends. In the weak-self variant the closure captures [weak self]: the view \
            model deinits when released, its AnyCancellable cancels the subscription, and the \
            next name reaches nobody. Neither subject completes, as a long-lived publisher \
            would not. A correct analysis finds, for the strong-self variant only, \
            retain-cycle (the loop through the sink's closure) and leaked-subscription (its \
            subscription was never completed or cancelled and is still alive when the story \
            ends, with its owner unreachable); the weak-self variant is correct.
            """,
        expectedDiagnoses: ["retain-cycle", "leaked-subscription"],
        run: { console in
            showNames(capturingSelfWeakly: false, console: console)
            showNames(capturingSelfWeakly: true, console: console)
        }
    )

    /// Subscribes a view model, releases it, and shows whether it survived.
    private static func showNames(capturingSelfWeakly: Bool, console: SampleConsole) {
        console.print(
            capturingSelfWeakly ? "[weak self] in the sink" : "self captured strongly in the sink")
        let names = PassthroughSubject<String, Never>()
        var viewModel: ProfileViewModel? = ProfileViewModel(
            names: names, capturesSelfWeakly: capturingSelfWeakly, console: console)
        weak let observedViewModel = viewModel
        names.send("Ada")
        console.print("Releasing the last outside reference to the view model")
        viewModel = nil
        console.print(
            observedViewModel == nil ? "The view model is gone" : "The view model is still alive")
        console.print("names.send(\"Grace\")")
        names.send("Grace")
    }
}
