import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A campaign's child: runs a run of inputs, saying on standard output which one it starts
/// before it starts it, so that the parent knows the input a trap ended the process on, and
/// what became of each.
struct BatchRunner {
    let mutator: LogMutator
    let seed: UInt64

    func run(from first: Int, count: Int) {
        for index in first..<(first + max(count, 0)) {
            say("start \(index)")
            var generator = SeededGenerator(seed: seed, index: index)
            switch OutputExerciser.run(mutator.input(index, using: &generator)) {
            case .rejected: say("rejected \(index)")
            case .rendered: say("rendered \(index)")
            }
        }
        say("done")
    }

    /// Writes a line unbuffered: it must reach the parent even if the next input traps.
    private func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    }
}
