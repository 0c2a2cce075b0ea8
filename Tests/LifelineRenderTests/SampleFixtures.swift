import Foundation
import LifelineAnalysis
import LifelineLog

/// The recorded logs of the sample stories in `Fixtures/`, with what the analyzer finds in
/// them.
enum SampleFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The fixture files' story names, sorted.
    static var names: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".jsonl") }.map { String($0.dropLast(".jsonl".count)) }.sorted()
    }

    /// Every fixture that reads, as a golden-file sample with the standard analyzer's
    /// diagnoses. A fixture that does not read is left out here and reported by
    /// `SampleFixtureTests.everyFixtureReadsCleanly`.
    static let samples: [GoldenFileTests.Sample] = names.compactMap { name in
        guard let trace = try? TraceReader.read(contentsOf: directory.appendingPathComponent("\(name).jsonl").path) else { return nil }
        return GoldenFileTests.Sample(name: name, trace: trace, diagnoses: TraceAnalyzer().diagnose(trace))
    }
}
