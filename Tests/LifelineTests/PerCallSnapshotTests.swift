import Foundation
import OpenCombineShim
import Testing
@testable import Lifeline
import LifelineLog

extension RecordingTests {
    /// Per-call snapshots read only what changed since the snapshot before, and say so in
    /// delta lines; what they find is what a full read finds.
    @Suite struct PerCallSnapshotTests {
        /// A screen's model: subjects, a future the program fulfils itself, and the
        /// cancellables of the pipelines that sink into it.
        final class ScreenModel {
            var subjects: [PassthroughSubject<Int, Never>] = []
            var cancellables = Set<AnyCancellable>()
            var pending: Future<Int, Never>.Promise?
            var total = 0

            func bind(pipelines: Int) {
                for _ in 0..<pipelines {
                    let subject = PassthroughSubject<Int, Never>()
                    subject.map { $0 + 1 }.sink { [weak self] in self?.total += $0 }.store(in: &cancellables)
                    subjects.append(subject)
                }
            }
        }

        @Test func aCallAmongManyLivePipelinesReadsOnlyWhatItChanged() throws {
            var readAfterOneCall = 0
            var readInFull = 0
            var nodes = 0
            let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
                let session = try #require(Lifeline.current)
                let model = ScreenModel()
                model.bind(pipelines: 200)
                Lifeline.snapshot("all bound")
                readInFull = session.snapshots.objectsReadByLastSnapshot
                let subject = PassthroughSubject<Int, Never>()
                let extra = subject.sink { _ in }
                readAfterOneCall = session.snapshots.objectsReadByLastSnapshot
                extra.cancel()
                withExtendedLifetime(model) {}
            }
            let bound = try #require(trace.snapshot(at: "all bound"))
            nodes = bound.nodes.count
            #expect(nodes > 800, "\(nodes) nodes")
            #expect(readInFull >= nodes - 10, "a requested snapshot reads everything: \(readInFull) of \(nodes)")
            #expect(readAfterOneCall <= 8, "one subscribe among \(nodes) objects read \(readAfterOneCall)")
            let last = try #require(trace.snapshots.last { $0.reason == .subscribe })
            #expect(last.nodes.count > nodes, "the per-call snapshot still holds every object")
        }

        /// What the per-call snapshots of a subscribe and a cancel do among the objects of
        /// `pipelines` live pipelines: the most objects one read or checked, the most memory
        /// reads one made, and how many objects a complete snapshot read.
        private func perCallWork(pipelines: Int) throws -> (objects: Int, memoryReads: UInt64, nodes: Int) {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("per-call-\(UUID().uuidString).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .everyCall))
            defer { Lifeline.stop() }
            let session = try #require(Lifeline.current)
            let model = ScreenModel()
            model.bind(pipelines: pipelines)
            Lifeline.snapshot("bound")
            let nodes = session.snapshots.objectsReadByLastSnapshot
            let subject = PassthroughSubject<Int, Never>()
            var objects = 0
            var memoryReads: UInt64 = 0
            // More calls than it takes to check every object in turn among 800.
            for _ in 0..<60 {
                let token = subject.sink { _ in }
                let afterSubscribe = session.snapshots.lastWork
                token.cancel()
                for work in [afterSubscribe, session.snapshots.lastWork] {
                    objects = max(objects, work.read + work.rechecked)
                    memoryReads = max(memoryReads, work.memoryReads)
                }
            }
            withExtendedLifetime(model) {}
            return (objects, memoryReads, nodes)
        }

        @Test func aPerCallSnapshotDoesNotGrowWithTheLiveObjects() throws {
            let few = try perCallWork(pipelines: 20)
            let many = try perCallWork(pipelines: 200)
            #expect(many.nodes > 8 * few.nodes, "\(few.nodes) and \(many.nodes) objects")
            // The objects a call names, and the next ones in turn with the collections they hold.
            #expect(many.objects <= SnapshotRecorder.recheckStep + 16, "\(many.objects) objects read or checked among \(many.nodes)")
            #expect(many.objects <= few.objects + 8, "\(few.objects) among \(few.nodes), \(many.objects) among \(many.nodes)")
            #expect(many.memoryReads <= few.memoryReads + few.memoryReads / 2 + 16,
                    "\(few.memoryReads) memory reads among \(few.nodes) objects, \(many.memoryReads) among \(many.nodes)")
        }

        @Test func perCallSnapshotsFindWhatAFullReadFinds() throws {
            var session: RecordingSession?
            let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
                session = Lifeline.current
                session?.snapshots.compareReads()
                let model = ScreenModel()
                Lifeline.track(model, name: "model")
                model.bind(pipelines: 20)
                for (index, subject) in model.subjects.enumerated() where index % 3 == 0 {
                    subject.send(index)
                }
                // Changes the program makes outside any Combine call, each followed by a call.
                let future = Future<Int, Never> { model.pending = $0 }
                future.sink { model.total += $0 }.store(in: &model.cancellables)
                model.pending?(.success(7))
                model.pending = nil
                model.subjects[1].send(completion: .finished)
                var token: AnyCancellable?
                token = model.subjects[2].sink { _ in token = nil }
                model.subjects[4].send(1)
                model.cancellables.removeFirst().cancel()
                model.cancellables.removeAll()
                model.subjects[3].send(completion: .finished)
                model.bind(pipelines: 3)
                model.subjects.removeAll()
                let last = PassthroughSubject<Int, Never>().sink { _ in }
                last.cancel()
            }
            let found = try #require(session?.snapshots.readComparison)
            #expect(found.differences.isEmpty, "\(found.differences.prefix(20).joined(separator: "\n"))")
            #expect(found.snapshots.count > 30)
            #expect(trace.snapshots == found.snapshots, "the delta lines read back as the snapshots taken")
        }

        /// A sequence's subscription finishes inside `subscribe` and dies with the call: the
        /// array its iterator held leaves the graph with it. (It used to stay, drawn "as found
        /// before", until the next array malloc happened to put at its address took over its id:
        /// the gallery's sink-and-assign drew one Array<Int> more in a CI run whose temporary
        /// folder had another length.)
        @Test func whatOnlyADeadSubscriptionHeldLeavesTheGraphWithIt() throws {
            var session: RecordingSession?
            let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
                session = Lifeline.current
                session?.snapshots.compareReads()
                let first = Array(1...5), second = Array(1...5)
                let sink = first.publisher.sink { _ in }
                let assign = second.publisher.sink { _ in }
                withExtendedLifetime((sink, assign, first, second)) {}
            }
            func arrays(in snapshot: TraceSnapshot) -> Int {
                snapshot.nodes.filter { trace.objects[$0.id]?.shortTypeName == "Array<Int>" }.count
            }
            let subscribes = trace.snapshots.filter { $0.reason == .subscribe }
            let completions = trace.snapshots.filter { $0.reason == .completion }
            #expect(subscribes.count == 2 && completions.count == 2)
            // While its subscription finishes, each array is held by that subscription alone.
            #expect(completions.map(arrays) == [1, 1], "\(completions.map(arrays))")
            // Once `subscribe` returns, no subscription lives, and no array is drawn.
            #expect(subscribes.map(arrays) == [0, 0], "\(subscribes.map(arrays))")
            let found = try #require(session?.snapshots.readComparison)
            #expect(found.differences.isEmpty, "\(found.differences.prefix(20).joined(separator: "\n"))")
        }

        @Test func perCallSnapshotsAreWrittenAsDeltasAndTheStopSnapshotInFull() throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("per-call-\(UUID().uuidString).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            // JSON Lines, to read the log's lines as text.
            try Lifeline.start(writingTo: path, options: RecordingOptions(snapshots: .everyCall, logFormat: .jsonLines))
            let model = ScreenModel()
            model.bind(pipelines: 50)
            Lifeline.snapshot("bound")
            model.subjects[0].send(1)
            model.cancellables.removeAll()
            Lifeline.stop()
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            let snapshotLines = lines.filter { $0.hasPrefix("{\"kind\":\"snapshot\"") }
            let deltas = snapshotLines.filter { $0.contains("\"base\":") }
            #expect(snapshotLines.first?.contains("\"base\":") == false, "the first is written in full")
            #expect(snapshotLines.last?.contains("\"reason\":\"stop\"") == true)
            #expect(snapshotLines.last?.contains("\"base\":") == false, "the stop snapshot is written in full")
            let requested = try #require(snapshotLines.first { $0.contains("\"label\":\"bound\"") })
            #expect(!requested.contains("\"base\":"), "a requested snapshot is written in full")
            #expect(deltas.count >= snapshotLines.count - 3)
            // A call among 50 live pipelines writes what it changed, not the whole graph.
            let largestDelta = deltas.map(\.utf8.count).max() ?? 0
            #expect(largestDelta * 4 < requested.utf8.count, "\(largestDelta) bytes against \(requested.utf8.count) in full")
            _ = try TraceReader.read(contentsOf: path)
        }
    }
}
