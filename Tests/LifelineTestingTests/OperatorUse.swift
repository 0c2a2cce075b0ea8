import Dispatch
import OpenCombineShim
import Testing

/// One OpenCombine operator or publisher in correct use: a pipeline that runs to its end
/// inside ``run``, and what its subscriber must receive.
struct OperatorUse: Sendable, CustomTestStringConvertible {
    /// The operator or publisher under test, as the matrix lists it.
    let name: String
    /// What the subscriber receives (see ``PipelineOutcome``).
    let expected: [String]
    /// Builds the pipeline, drives it to its end, and returns once every value and the
    /// completion have been delivered.
    let run: @Sendable (PipelineOutcome) -> Void

    init(_ name: String, expected: [String], run: @escaping @Sendable (PipelineOutcome) -> Void) {
        self.name = name
        self.expected = expected
        self.run = run
    }

    var testDescription: String { name }
}

extension OperatorUse {
    /// Sends `values` and `.finished` through a fresh subject piped through `transform`.
    static func subject<Output>(
        _ name: String, sending values: [Int], expected: [String],
        _ transform: @escaping @Sendable (PassthroughSubject<Int, Never>) -> AnyPublisher<Output, Never>
    ) -> OperatorUse {
        OperatorUse(name, expected: expected) { outcome in
            let subject = PassthroughSubject<Int, Never>()
            let cancellable = transform(subject).sink(into: outcome)
            values.forEach(subject.send)
            subject.send(completion: .finished)
            withExtendedLifetime(cancellable) {}
        }
    }

    /// Runs `body` with a serial queue, then waits until `finished` is signalled and the
    /// queue has run everything sent to it.
    static func onQueue(_ name: String, expected: [String], _ body: @escaping @Sendable (PipelineOutcome, DispatchQueue, DispatchSemaphore) -> Void) -> OperatorUse {
        OperatorUse(name, expected: expected) { outcome in
            let queue = DispatchQueue(label: "lifeline.tests.\(name)")
            let finished = DispatchSemaphore(value: 0)
            body(outcome, queue, finished)
            if finished.wait(timeout: .now() + .seconds(10)) == .timedOut { outcome.note("timed out") }
            queue.sync {}
        }
    }
}
