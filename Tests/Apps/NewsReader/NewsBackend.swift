import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A simulated server: every request answers on the network queue after a short delay.
final class NewsBackend: Sendable {
    private let queues: AppQueues

    init(queues: AppQueues) {
        self.queues = queues
    }

    /// The headlines that match `query`, one request per call.
    func search(_ query: String) -> Future<[String], Never> {
        Future { promise in
            self.queues.run(on: self.queues.network, after: .milliseconds(5)) {
                promise(.success(["\(query) 6.3 released", "\(query) on Linux"]))
            }
        }
    }

    /// The front page's articles.
    func fetchArticles() -> Future<[Article], Never> {
        Future { promise in
            self.queues.run(on: self.queues.network, after: .milliseconds(5)) {
                promise(.success([Article(title: "Combine in depth"), Article(title: "Pipelines explained")]))
            }
        }
    }

    /// The signed-in reader's profile: one value, then the request finishes.
    func fetchProfile() -> AnyPublisher<String, Never> {
        Future { promise in
            self.queues.run(on: self.queues.network, after: .milliseconds(5)) {
                promise(.success("Ada"))
            }
        }
        .eraseToAnyPublisher()
    }

    /// Uploads a batch of analytics events; answers with the number of events stored.
    func upload(_ events: [String]) -> UploadPublisher {
        UploadPublisher(events: events, queues: queues)
    }
}

/// One article of the front page.
struct Article: Sendable, Equatable {
    let title: String
}
