import ArgumentParser
import Foundation

/// `lifeline-fuzz`: feeds the log reader and every output mutated logs, and fails on a crash.
///
/// A campaign is deterministic: input N is made from the seed and N alone, so the same seed
/// and corpus give the same inputs. The first inputs are the corpus itself (the reproducers of
/// past bugs and the sample logs). Inputs run in batches, each in a child process, because a
/// trap ends the process that hits it: the parent sees which input a child died on, saves it,
/// and goes on with the next one.
///
/// ```sh
/// lifeline-fuzz --seed 1 --executions 3000 Fuzz/Corpus Tests/LifelineRenderTests/Fixtures
/// lifeline-fuzz --reproduce .build/fuzz-crashes/crash-1-1234.jsonl
/// ```
@main
struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifeline-fuzz",
        abstract: "Fuzz Lifeline's log reader and every output; exit 1 on a crash or a hang."
    )

    @Argument(help: "Folders of seed logs (.jsonl), read in name order.")
    var corpus: [String] = []

    @Option(help: "The campaign's seed: the same seed gives the same inputs.")
    var seed: UInt64 = 1

    @Option(help: "How many inputs to run, the corpus's own logs first.")
    var executions = 3_000

    @Option(help: "Inputs per child process.")
    var batchSize = 250

    @Option(help: "Stop starting batches after this many seconds (the figures say so).")
    var maxSeconds: Double = 600

    @Option(help: "A batch that runs longer than this many seconds is a hang.")
    var batchTimeout: Double = 300

    @Option(help: "Where crashing inputs are saved.")
    var crashes = ".build/fuzz-crashes"

    @Option(help: "Run one saved input in this process, to see its crash.")
    var reproduce: String?

    @Option(help: ArgumentHelp("Run inputs from this number on, in this process (a campaign's child).", visibility: .private))
    var batchFirst: Int?

    func validate() throws {
        if reproduce == nil && corpus.isEmpty { throw ValidationError("name at least one corpus folder") }
        if executions < 0 || batchSize < 1 { throw ValidationError("--executions must be 0 or more and --batch-size 1 or more") }
    }

    func run() throws {
        if let reproduce {
            let outcome = OutputExerciser.run([UInt8](try Data(contentsOf: URL(fileURLWithPath: reproduce))))
            print("\(reproduce): \(outcome)")
            return
        }
        let mutator = LogMutator(corpus: try Self.readCorpus(corpus))
        if let batchFirst {
            BatchRunner(mutator: mutator, seed: seed).run(from: batchFirst, count: min(batchSize, executions - batchFirst))
            return
        }
        let campaign = Campaign(
            mutator: mutator, seed: seed, executions: executions, batchSize: batchSize, maxSeconds: maxSeconds,
            batchTimeout: batchTimeout, crashFolder: URL(fileURLWithPath: crashes), corpusArguments: corpus
        )
        let result = try campaign.run()
        print(result.summary)
        if !result.failures.isEmpty { throw ExitCode(1) }
    }

    /// Every `.jsonl` file in the folders, folder by folder, in name order.
    static func readCorpus(_ folders: [String]) throws -> [[UInt8]] {
        var logs: [[UInt8]] = []
        for folder in folders {
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".jsonl") }.sorted()
            for name in names {
                logs.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name))))
            }
        }
        guard !logs.isEmpty else { throw ValidationError("the corpus folders hold no .jsonl file") }
        return logs
    }
}
