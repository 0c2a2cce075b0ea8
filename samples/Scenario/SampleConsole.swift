import Synchronization

/// The console a sample story prints to: it keeps every line, in order, and can echo each line
/// as it is printed.
///
/// Stories print through a console instead of `Swift.print` so that whoever runs them decides
/// where the lines go: a sample's `main.swift` echoes them to standard output, `lifeline samples`
/// writes them to `output/<story>/console.txt`, and the tests read them back. Lines may be
/// printed from any thread; they are kept in the order the `print(_:)` calls happened.
///
/// ```swift
/// let console = SampleConsole()
/// SampleScenario.sinkAndAssign.run(console)
/// console.lines.first  // "Received value: 1"
/// ```
public final class SampleConsole: Sendable {
    private let printed = Mutex<[String]>([])
    private let echo: (@Sendable (String) -> Void)?

    /// Creates an empty console.
    ///
    /// - Parameter echo: Called with each line as it is printed, while the console's lock is
    ///   held, so echoed lines come out in the same order as ``lines``. Pass `nil` to only
    ///   collect the lines.
    public init(echo: (@Sendable (String) -> Void)? = nil) {
        self.echo = echo
    }

    /// Every line printed so far, oldest first.
    public var lines: [String] {
        printed.withLock { $0 }
    }

    /// Prints one line.
    ///
    /// - Parameter line: The text, without a trailing newline.
    public func print(_ line: String) {
        printed.withLock { lines in
            lines.append(line)
            echo?(line)
        }
    }
}
