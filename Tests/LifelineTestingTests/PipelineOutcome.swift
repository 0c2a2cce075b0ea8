import OpenCombineShim
import Synchronization

/// What a pipeline's subscriber received, as text: each value, then `finished` or
/// `failure(<error>)`. Safe to fill from any thread.
final class PipelineOutcome: Sendable {
    private let received = Mutex<[String]>([])

    /// Everything received so far, in order.
    var events: [String] { received.withLock { $0 } }

    func note<Value>(_ value: Value) {
        received.withLock { $0.append("\(value)") }
    }

    func note<Failure>(_ completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished: received.withLock { $0.append("finished") }
        case .failure(let error): received.withLock { $0.append("failure(\(error))") }
        }
    }
}

extension Publisher {
    /// Subscribes a sink that writes what it receives into `outcome`.
    func sink(into outcome: PipelineOutcome) -> AnyCancellable {
        sink(receiveCompletion: { outcome.note($0) }, receiveValue: { outcome.note($0) })
    }
}

/// The error the matrix's failing publishers fail with.
struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}
