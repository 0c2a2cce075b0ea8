extension SampleScenario {
    /// The seed's second fix: a sink-like method returns the cancellable for the owner to keep.
    public static let returnedCancellable = SampleScenario(
        name: "returned-cancellable",
        title: "A sink-like method returns the AnyCancellable the owner keeps",
        summary: """
            The same DecodedDataTaskPublisher, with the seed's second fix: sinkDecoded \
            subscribes a closure-based subscriber that keeps its subscription, and returns it \
            as an AnyCancellable. The screen that made the request keeps that AnyCancellable, \
            so the request lives as long as the screen: the value and the completion arrive, \
            and afterwards the screen is released, and its AnyCancellable with it. Every \
            object dies after its work is done and nothing breaks the contract, so a correct \
            analysis finds nothing.
            """,
        expectedDiagnoses: [],
        run: { console in
            let network = OfflineNetwork()
            var screen: ArticleScreen? = ArticleScreen(console: console)
            network.delivery.hold()
            screen?.makeTheRequest(on: network)
            console.print("ArticleScreen keeps the AnyCancellable")
            if !network.delivery.releaseAndWait() {
                console.print("Timed out waiting for the data task")
            }
            console.print("Releasing ArticleScreen")
            screen = nil
            network.invalidate()
        }
    )
}
