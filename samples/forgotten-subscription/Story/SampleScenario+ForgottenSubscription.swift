#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

extension SampleScenario {
    /// The seed's custom URL publisher whose subscription nobody keeps.
    public static let forgottenSubscription = SampleScenario(
        name: "forgotten-subscription",
        title: "A custom subscriber that forgets its subscription",
        summary: """
            A custom DecodedDataTaskPublisher hands each subscriber a DecodedDataTaskSubscription \
            that starts a URL data task when demand arrives. The subscriber requests .unlimited \
            but does not store the subscription, and the data task's handler holds the \
            subscription only weakly, so the subscription dies as soon as subscribe returns, and \
            the subscriber, which only makeTheRequest() still holds, when that returns: \
            "Received subscription", then "deinit subscriber", and the response that arrives \
            later finds nobody to deliver to. A correct analysis finds subscription-not-retained \
            (the subscription died right after the handshake although demand was outstanding). \
            The subscriber died after its subscription: it lost a subscription that was already \
            gone, so it did not die early, and keeping it alive would not have helped.
            """,
        expectedDiagnoses: ["subscription-not-retained"],
        run: { console in
            let network = OfflineNetwork()
            network.delivery.hold()
            makeTheRequest(on: network, console: console)
            console.print("makeTheRequest() returned")
            if network.delivery.releaseAndWait() {
                console.print("The data task finished with nobody left to deliver its response to")
            } else {
                console.print("Timed out waiting for the data task")
            }
            network.invalidate()
        }
    )

    /// The seed's `makeTheRequest()`: subscribes a subscriber that keeps nothing.
    private static func makeTheRequest(on network: OfflineNetwork, console: SampleConsole) {
        let publisher: DecodedDataTaskPublisher<Article> =
            network.decodedDataTaskPublisher(for: Article.request)
        let subscriber = DecodableDataTaskSubscriber<Article>(console: console)
        publisher.subscribe(subscriber)
    }
}
