import Dispatch
import Foundation
import OpenCombineShim
import Testing
import Lifeline
import LifelineLog

extension RecordingTests {
    /// A snapshot reaches every live object the recorder has declared, however deeply the
    /// pipeline's types nest.
    @Suite struct SnapshotCoverageTests {
        final class SearchViewModel {
            let query = PassthroughSubject<String, Never>()
            var shown: [String] = []
            var cancellables = Set<AnyCancellable>()

            func bind(on queue: DispatchQueue) {
                query
                    .debounce(for: .milliseconds(5), scheduler: queue)
                    .removeDuplicates()
                    .flatMap { text in Future<String, Never> { promise in promise(.success(text)) } }
                    .receive(on: queue)
                    .sink { [weak self] in self?.shown.append($0) }
                    .store(in: &cancellables)
            }
        }

        @Test func everyLiveDeclaredObjectIsInTheSnapshot() throws {
            let queue = DispatchQueue(label: "lifeline.tests.search")
            let model = SearchViewModel()
            let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
                Lifeline.track(model, name: "SearchViewModel")
                model.bind(on: queue)
                model.query.send("sw")
                model.query.send("swift")
                Thread.sleep(forTimeInterval: 0.05)
                queue.sync {}
                model.query.send("swift")
                Thread.sleep(forTimeInterval: 0.05)
                queue.sync {}
                Lifeline.snapshot("bound")
            }
            #expect(model.shown.last == "swift")
            let dead = Set(trace.events.compactMap { event -> TraceObjectID? in
                if case .deallocation(let object, _) = event.kind { return object }
                return nil
            })
            let snapshot = try #require(trace.snapshot(at: "bound"))
            let inSnapshot = Set(snapshot.nodes.filter(\.alive).map(\.id))
            let missing = trace.objects.values
                .filter { $0.lifetimeTracked && $0.role != .object && !dead.contains($0.id) && !inSnapshot.contains($0.id) }
                .filter { snapshot.seq >= (firstSeen(of: $0.id, in: trace) ?? .max) }
                .map(\.displayName).sorted()
            #expect(missing == [])
            let short = Set(snapshot.nodes.compactMap { trace.objects[$0.id]?.shortTypeName })
            #expect(short.isSuperset(of: ["Debounce.Inner", "RemoveDuplicates.Inner", "PassthroughSubject.Conduit", "Sink"]))
            model.cancellables.removeAll()
        }

        func firstSeen(of id: TraceObjectID, in trace: Trace) -> UInt64? {
            trace.events.first { $0.kind.objects.contains(id) }?.seq
        }
    }
}
