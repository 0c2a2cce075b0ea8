#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// The owner of the request (the seed's view controller): it keeps the `AnyCancellable` that
/// `sinkDecoded` returns, so the request lives as long as the screen.
final class ArticleScreen {
    private let console: SampleConsole
    private var cancellable: AnyCancellable?

    init(console: SampleConsole) {
        self.console = console
    }

    /// Starts loading the article and keeps the request's cancellable.
    func makeTheRequest(on network: OfflineNetwork) {
        let publisher: DecodedDataTaskPublisher<Article> =
            network.decodedDataTaskPublisher(for: Article.request)
        cancellable = publisher.sinkDecoded(
            receiveValue: { [console] value in console.print("Received value: \(value)") },
            receiveCompletion: { [console] completion in
                console.print("Received completion: \(completion)")
            }
        )
    }

    deinit {
        console.print("deinit ArticleScreen: its AnyCancellable goes with it")
    }
}
