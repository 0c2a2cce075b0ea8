extension SampleScenario {
    /// The seed's first fix: the subscriber keeps its subscription until completion.
    public static let storedSubscription = SampleScenario(
        name: "stored-subscription",
        title: "The subscriber stores its subscription",
        summary: """
            The same DecodedDataTaskPublisher as forgotten-subscription, with the seed's first \
            fix: the subscriber stores the subscription it receives, and cancels and releases \
            it when the completion arrives. The subscription survives the handshake, the value \
            and the completion are delivered on the network queue, and only then does the \
            subscriber deinit. The two keep each other alive only while the request is in \
            flight, and that loop is broken at completion, so a correct analysis finds \
            nothing; the cancel that follows the completion is allowed and changes nothing. \
            What the seed still dislikes is a design matter the log cannot show: the code that \
            makes the request has no handle to cancel it.
            """,
        expectedDiagnoses: [],
        run: { console in
            let network = OfflineNetwork()
            network.delivery.hold()
            makeTheRequest(on: network, console: console)
            console.print("makeTheRequest() returned")
            if !network.delivery.releaseAndWait() {
                console.print("Timed out waiting for the data task")
            }
            network.invalidate()
        }
    )

    /// The seed's `makeTheRequest()`, with a subscriber that stores its subscription.
    private static func makeTheRequest(on network: OfflineNetwork, console: SampleConsole) {
        let publisher: DecodedDataTaskPublisher<Article> =
            network.decodedDataTaskPublisher(for: Article.request)
        let subscriber = SubscriptionStoringSubscriber<Article>(console: console)
        publisher.subscribe(subscriber)
    }
}
