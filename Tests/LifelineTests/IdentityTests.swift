import OpenCombineShim
import Testing
import Lifeline
import LifelineAnalysis
import LifelineLog

extension RecordingTests {
    /// One object keeps one id for its lifetime, and one id names one object.
    @Suite struct IdentityTests {
        final class SearchViewModel {
            let query = PassthroughSubject<String, Never>()
            var cancellables = Set<AnyCancellable>()
        }

        final class Screen {
            let model = SearchViewModel()
        }

        /// The id of the object `field` of the node named `name` holds, in snapshot `label`.
        func target(of field: String, from name: String, in trace: Trace, at label: String) throws -> TraceObjectID {
            let snapshot = try #require(trace.snapshot(at: label))
            let holder = try #require(snapshot.nodes.first { $0.name == name })
            return try #require(snapshot.edges.first { $0.from == holder.id && $0.field == field }?.to)
        }

        @Test func anObjectASnapshotReachedBeforeTrackNamedItKeepsItsID() throws {
            let screen = Screen()
            let trace = try Lifeline.record {
                Lifeline.track(screen, name: "Screen")
                Lifeline.snapshot("reached")
                Lifeline.track(screen.model, name: "SearchViewModel")
                screen.model.query.sink { _ in }.store(in: &screen.model.cancellables)
                Lifeline.snapshot("tracked")
            }
            let reached = try target(of: "model", from: "Screen", in: trace, at: "reached")
            let tracked = try #require(trace.snapshot(at: "tracked")?.nodes.first { $0.name == "SearchViewModel" })
            #expect(tracked.id == reached)
            #expect(try target(of: "model", from: "Screen", in: trace, at: "tracked") == reached)
            #expect(trace.objects.values.filter { $0.typeName.hasSuffix(".SearchViewModel") }.count == 1)
        }

        @Test func aCollectionWhoseStorageMovesKeepsItsID() throws {
            let model = SearchViewModel()
            var moved = false
            let trace = try Lifeline.record {
                Lifeline.track(model, name: "SearchViewModel")
                model.query.sink { _ in }.store(in: &model.cancellables)
                Lifeline.snapshot("one")
                let before = model.cancellables.withUnsafeStorageAddress()
                for _ in 0..<40 { model.query.sink { _ in }.store(in: &model.cancellables) }
                moved = model.cancellables.withUnsafeStorageAddress() != before
                Lifeline.snapshot("forty-one")
            }
            #expect(moved, "growing the set moved its storage")
            let one = try target(of: "cancellables", from: "SearchViewModel", in: trace, at: "one")
            let fortyOne = try target(of: "cancellables", from: "SearchViewModel", in: trace, at: "forty-one")
            #expect(one == fortyOne)
            model.cancellables.removeAll()
        }

        @Test func subscribersForwardingADeadObjectsAddressNeverMerge() throws {
            let trace = try Lifeline.record {
                for round in 0..<60 {
                    let source = PassthroughSubject<Int, Never>()
                    let trigger = PassthroughSubject<Void, Never>()
                    let cancellable = source.prefix(untilOutputFrom: trigger).sink { _ in }
                    source.send(round)
                    trigger.send(())
                    // OpenCombine keeps the trigger's subscription after it fired; finishing
                    // the trigger frees it, so the next round's objects can reuse its address.
                    trigger.send(completion: .finished)
                    withExtendedLifetime(cancellable) {}
                }
            }
            // Each termination subscriber is subscribed to its own trigger exactly once.
            var subscribes: [TraceObjectID: Int] = [:]
            for event in trace.events where event.phase == .begin {
                if case .subscribe(_, let subscriber) = event.kind { subscribes[subscriber, default: 0] += 1 }
            }
            let terminations = trace.objects.values.filter { $0.typeName.hasSuffix(".Termination") }
            #expect(terminations.count == 60)
            #expect(terminations.allSatisfy { subscribes[$0.id] == 1 })
            #expect(!TraceAnalyzer().diagnose(trace).contains { $0.code == "duplicate-subscription" })
        }
    }
}

extension Set {
    /// The address of the set's storage, to see it move.
    func withUnsafeStorageAddress() -> UInt {
        unsafeBitCast(self, to: UInt.self)
    }
}
