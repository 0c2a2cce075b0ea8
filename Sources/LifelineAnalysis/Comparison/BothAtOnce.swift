import Foundation

/// Runs two independent pieces of work at once, one on a thread of its own, and gives both
/// results: a comparison reads and diagnoses its two recordings this way, each about as long
/// as a `diagnose`.
package enum BothAtOnce {
    /// The results of `first` and `second`, run at the same time.
    package static func run<First: Sendable, Second: Sendable>(
        _ first: @escaping @Sendable () -> First, _ second: @escaping @Sendable () -> Second
    ) -> (First, Second) {
        let other = Outcome<Second>()
        let thread = Thread { other.set(second()) }
        // The reader's recursion over a deep log wants the stack the main thread has.
        thread.stackSize = 64 << 20
        thread.start()
        return (first(), other.wait())
    }

    /// The results of `first` and `second`, run at the same time; the error of `first`, or
    /// else of `second`, when one throws.
    package static func run<First: Sendable, Second: Sendable>(
        _ first: @escaping @Sendable () throws -> First, _ second: @escaping @Sendable () throws -> Second
    ) throws -> (First, Second) {
        let (first, second) = run({ Result(catching: first) }, { Result(catching: second) })
        return (try first.get(), try second.get())
    }

    /// What the other thread's work gave, once it has.
    private final class Outcome<Value: Sendable>: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var value: Value?

        func set(_ value: Value) {
            self.value = value
            done.signal()
        }

        func wait() -> Value {
            done.wait()
            return value!
        }
    }
}
