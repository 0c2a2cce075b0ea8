import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A spinner on standard error for work that takes more than a moment.
///
/// Nothing is shown when the work ends within ``delay``, or when standard error is not a
/// terminal (a pipe, a file, CI), so logs and scripts never see it. Once shown, the line
/// says what is being done and for how long, and it is erased when the work ends.
///
/// ```swift
/// let svg = ProgressIndicator.run("rendering the sequence diagram") { render(trace) }
/// ```
final class ProgressIndicator: @unchecked Sendable {
    /// How long work runs before the indicator appears.
    static let delay: DispatchTimeInterval = .milliseconds(400)
    private static let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    private let message: String
    private let start = ContinuousClock.now
    private let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "lifeline.progress"))
    /// Guards `frame`, `shown` and `finished` between the timer's queue and the worker.
    private let lock = NSLock()
    private var frame = 0
    private var shown = false
    private var finished = false

    private init(_ message: String) {
        self.message = message
    }

    /// Runs `work`, showing `message` with a spinner on standard error if it takes longer
    /// than ``delay`` and standard error is a terminal.
    static func run<Result>(_ message: String, _ work: () throws -> Result) rethrows -> Result {
        guard isatty(STDERR_FILENO) == 1 else { return try work() }
        let indicator = ProgressIndicator(message)
        indicator.begin()
        defer { indicator.end() }
        return try work()
    }

    private func begin() {
        timer.setEventHandler { [self] in tick() }
        timer.schedule(deadline: .now() + Self.delay, repeating: .milliseconds(100))
        timer.resume()
    }

    private func tick() {
        lock.lock()
        defer { lock.unlock() }
        guard !finished else { return }
        let elapsed = start.duration(to: .now).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        let line = "\r\(Self.frames[frame % Self.frames.count]) \(message)… \(String(format: "%.1f", seconds)) s"
        frame += 1
        shown = true
        FileHandle.standardError.write(Data(line.utf8))
    }

    private func end() {
        lock.lock()
        finished = true
        let erase = shown
        lock.unlock()
        timer.cancel()
        // Erase the spinner's line so that what follows starts on a clean line.
        if erase { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
