import Dispatch
import Foundation
import OpenCombineShim
import Testing
import Lifeline
import LifelineAnalysis
import LifelineLog

extension RecordingTests {
    /// Snapshots in recorded logs: tracked roots, the retain cycle a stored sink makes, and
    /// automatic snapshots.
    @Suite struct SnapshotRecordingTests {
        final class ViewModel {
            let subject = PassthroughSubject<Int, Never>()
            var cancellables = Set<AnyCancellable>()
            var value = 0

            func bind(weakly: Bool) {
                if weakly {
                    subject.sink { [weak self] in self?.value = $0 }.store(in: &cancellables)
                } else {
                    subject.sink { self.value = $0 }.store(in: &cancellables)
                }
            }
        }

        /// The chain of strong edges from the node named `name` back to it, following the one
        /// strong edge that leaves each node on the way, in words.
        func strongCycle(from start: TraceSnapshot.Node, in snapshot: TraceSnapshot, trace: Trace) -> [String] {
            var words: [String] = []
            var current = start.id
            var visited = Set<TraceObjectID>()
            while visited.insert(current).inserted {
                let next = snapshot.edges.filter { $0.from == current && $0.ownership == .strong }
                    .first { edge in self.reaches(edge.to, start.id, snapshot) }
                guard let next else { return [] }
                let name = snapshot.node(current)?.name ?? trace.objects[current]?.shortTypeName ?? "?"
                words.append("\(name).\(next.field)")
                current = next.to
                if current == start.id { return words }
            }
            return []
        }

        func reaches(_ from: TraceObjectID, _ target: TraceObjectID, _ snapshot: TraceSnapshot) -> Bool {
            var frontier = [from], seen = Set<TraceObjectID>()
            while let node = frontier.popLast() {
                if node == target { return true }
                guard seen.insert(node).inserted else { continue }
                frontier += snapshot.edges.filter { $0.from == node && $0.ownership == .strong }.map(\.to)
            }
            return false
        }

        @Test func aStoredSinkThatCapturesSelfShowsTheCycleThroughTheSet() throws {
            let trace = try Lifeline.record {
                let model = ViewModel()
                Lifeline.track(model, name: "ViewModel")
                model.bind(weakly: false)
                Lifeline.snapshot("bound")
                model.cancellables.removeAll()
                Lifeline.snapshot("released")
            }
            let bound = try #require(trace.snapshot(at: "bound"))
            let root = try #require(bound.nodes.first { $0.name == "ViewModel" })
            #expect(root.kind == .root && root.alive)
            #expect(strongCycle(from: root, in: bound, trace: trace) == [
                "ViewModel.cancellables", "Set<AnyCancellable>.[0]", "AnyCancellable._cancel (closure)",
                "Sink.receiveValue (closure)",
            ])
            let kinds = Dictionary(bound.nodes.map { (trace.objects[$0.id]?.shortTypeName ?? "?", $0.kind) }, uniquingKeysWith: { a, _ in a })
            #expect(kinds["Set<AnyCancellable>"] == .collection)
            #expect(kinds["AnyCancellable"] == .cancellable)
            #expect(kinds["Sink"] == .subscriber)
            #expect(kinds["PassthroughSubject"] == .subject)
            // Under the hook the sink holds its subscription through OpenCombine's tap.
            let sink = try #require(bound.nodes.first { $0.kind == .subscriber })
            let held = bound.edges.filter { $0.from == sink.id && $0.field == "status.subscribed.subscription" }
            #expect(held.map { bound.node($0.to)?.kind } == [.subscription])

            let released = try #require(trace.snapshot(at: "released"))
            let releasedRoot = try #require(released.nodes.first { $0.name == "ViewModel" })
            #expect(strongCycle(from: releasedRoot, in: released, trace: trace).isEmpty)
            #expect(released.index > bound.index && released.seq >= bound.seq)
        }

        @Test func aWeakSelfSinkShowsAWeakEdgeAndNoCycle() throws {
            let trace = try Lifeline.record {
                let model = ViewModel()
                Lifeline.track(model, name: "ViewModel")
                model.bind(weakly: true)
                Lifeline.snapshot("bound")
            }
            let snapshot = try #require(trace.snapshot(at: "bound"))
            let root = try #require(snapshot.nodes.first { $0.name == "ViewModel" })
            #expect(strongCycle(from: root, in: snapshot, trace: trace).isEmpty)
            let sink = try #require(snapshot.nodes.first { trace.objects[$0.id]?.shortTypeName == "Sink" })
            let capture = try #require(snapshot.edges.first { $0.from == sink.id && $0.to == root.id })
            #expect(capture.field == "receiveValue (closure)" && capture.ownership == .weak)
            // The closure is named by where it is written, the `[weak self]` sink in `bind`.
            let place = try #require(capture.closurePlace(in: trace))
            #expect(place.fileAndLine == "SnapshotRecordingTests.swift:20", "\(place)")
            #expect(place.function?.contains("ViewModel.bind(weakly:)") == true, "\(place)")
            #expect(!snapshot.edges.contains { $0.to == root.id && $0.ownership == .strong })
            // The root list holds a weak reference to the root, and the registry a reference to
            // each object it knows: a weak one with the Objective-C runtime, an unowned one
            // without. The program holds one weak reference, the sink's capture, and no unowned.
            #if canImport(ObjectiveC)
            #expect(root.retainCounts?.recorderWeak == 2)
            #expect(sink.retainCounts?.recorderWeak == 1)
            #else
            #expect(root.retainCounts?.recorderWeak == 1)
            #expect(root.retainCounts?.recorderUnowned == 1)
            #expect(sink.retainCounts?.recorderWeak == 0)
            #expect(sink.retainCounts?.recorderUnowned == 1)
            #expect(sink.retainCounts?.unownedReferences == 0)
            #endif
            #expect(root.retainCounts?.programWeak == 1)
            #expect(root.retainCounts?.unownedReferences == 0)
        }

        @Test func trackingKeepsNothingAliveAndADeadRootShowsAsDeallocated() throws {
            weak var watched: ViewModel?
            let trace = try Lifeline.record {
                do {
                    let model = ViewModel()
                    watched = model
                    Lifeline.track(model, name: "ViewModel")
                    Lifeline.snapshot("alive")
                }
                #expect(watched == nil, "tracking and snapshots hold the root only weakly")
                Lifeline.snapshot("dead")
            }
            let alive = try #require(trace.snapshot(at: "alive")?.nodes.first { $0.name == "ViewModel" })
            let dead = try #require(trace.snapshot(at: "dead")?.nodes.first { $0.name == "ViewModel" })
            #expect(alive.alive && alive.retainCounts != nil)
            #expect(!dead.alive && dead.retainCounts == nil && dead.id == alive.id)
        }

        final class Part {}

        final class Owner {
            var part = Part()
        }

        @Test func anObjectOnlyInspectionReachesKeepsItsIDWhileConsecutiveSnapshotsSeeIt() throws {
            let owner = Owner()
            var reusedAddress = false
            let trace = try Lifeline.record {
                Lifeline.track(owner, name: "Owner")
                Lifeline.snapshot("first")
                Lifeline.snapshot("second")
                var first: Part? = owner.part
                let firstAddress = first.map { UInt(bitPattern: Unmanaged.passUnretained($0).toOpaque()) }
                owner.part = Part()
                Lifeline.snapshot("replaced")
                first = nil
                // A new part at the first one's address: a new object, though it has the same
                // type and address, because a snapshot in between saw another part there.
                var candidates: [Part] = []
                while candidates.count < 10_000 {
                    let candidate = Part()
                    if UInt(bitPattern: Unmanaged.passUnretained(candidate).toOpaque()) == firstAddress {
                        owner.part = candidate
                        reusedAddress = true
                        break
                    }
                    candidates.append(candidate)
                }
                Lifeline.snapshot("replaced again")
                withExtendedLifetime((first, candidates)) {}
            }
            #expect(reusedAddress, "malloc handed the first part's address out again")
            func partID(_ label: String) throws -> TraceObjectID {
                let snapshot = try #require(trace.snapshot(at: label))
                let root = try #require(snapshot.nodes.first { $0.name == "Owner" })
                return try #require(snapshot.edges.first { $0.from == root.id && $0.field == "part" }?.to)
            }
            let ids = try ["first", "second", "replaced", "replaced again"].map(partID)
            #expect(ids[0] == ids[1])
            #expect(Set(ids[1...]).count == 3)
            #expect(ids.allSatisfy { trace.objects[$0]?.typeName.hasSuffix(".Part") == true })
        }

        @Test func aRootTrackedBeforeRecordingIsARootOfItsSnapshotsAndTrackingAgainRenamesIt() throws {
            let model = ViewModel()
            Lifeline.track(model, name: "early")
            let trace = try Lifeline.record {
                Lifeline.snapshot("first")
                Lifeline.track(model, name: "renamed")
                Lifeline.snapshot("second")
            }
            #expect(trace.snapshot(at: "first")?.nodes.compactMap(\.name) == ["early"])
            #expect(trace.snapshot(at: "second")?.nodes.compactMap(\.name) == ["renamed"])
            let first = try #require(trace.snapshot(at: "first")?.nodes.first { $0.kind == .root })
            #expect(trace.objects[first.id]?.role == .object)
            #expect(trace.objects[first.id]?.lifetimeTracked == true)
            withExtendedLifetime(model) {}
        }

        @Test func automaticSnapshotsFollowSubscribeCancelAndStop() throws {
            let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
                let subject = PassthroughSubject<Int, Never>()
                let cancellable = subject.sink { _ in }
                cancellable.cancel()
            }
            let reasons = trace.snapshots.map(\.reason)
            #expect(reasons.first == .subscribe)
            #expect(reasons.contains(.cancel))
            #expect(reasons.last == .stop)
            #expect(trace.snapshots.map(\.index) == Array(1...trace.snapshots.count))
            for snapshot in trace.snapshots where snapshot.reason != .stop {
                let event = try #require(trace.events.first { $0.seq == snapshot.seq })
                #expect(event.phase == .end, "an automatic snapshot follows the end of its call")
            }
        }

        @Test func automaticSnapshotsWhileThreadsRunPipelinesGiveAReadableLog() throws {
            let trace = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall)) {
                DispatchQueue.concurrentPerform(iterations: 4) { worker in
                    let model = ViewModel()
                    Lifeline.track(model, name: "model \(worker)")
                    for round in 0..<25 {
                        model.bind(weakly: round % 2 == 0)
                        model.subject.send(round)
                        if round % 5 == 4 { model.cancellables.removeAll() }
                    }
                    model.cancellables.removeAll()
                }
            }
            #expect(trace.snapshots.count > 100)
            #expect(Set(trace.snapshots.map(\.index)).count == trace.snapshots.count)
            let names = Set(trace.snapshots.flatMap { $0.nodes.compactMap(\.name) })
            #expect(names == ["model 0", "model 1", "model 2", "model 3"])
        }

        @Test func byDefaultTheOnlySnapshotIsTakenAtStop() throws {
            let trace = try Lifeline.record {
                let subject = PassthroughSubject<Int, Never>()
                subject.sink { _ in }.cancel()
            }
            #expect(trace.snapshots.map(\.reason) == [.stop])
        }

        /// Deliberately leaked by ``oneTestsDeliberateLeakNeverAppearsInTheNextTestsLog()``.
        nonisolated(unsafe) static var leaked: [ViewModel] = []

        @Test func oneTestsDeliberateLeakNeverAppearsInTheNextTestsLog() throws {
            let first = try Lifeline.record {
                let model = ViewModel()
                Lifeline.track(model, name: "leaked model")
                model.bind(weakly: false)
                Self.leaked.append(model)
            }
            #expect(TraceAnalyzer().diagnose(first).map(\.code).contains("retain-cycle"))
            Self.leaked.removeAll()  // the model stays alive: its sink holds it

            let second = try Lifeline.record {
                let subject = PassthroughSubject<Int, Never>()
                let cancellable = subject.sink { _ in }
                Lifeline.snapshot("check")
                subject.send(1)
                cancellable.cancel()
            }
            #expect(second.snapshots.map(\.label) == ["check", "stop"])
            for snapshot in second.snapshots {
                #expect(!snapshot.nodes.contains { $0.kind == .root }, "snapshot \(snapshot.label)")
            }
            #expect(!second.objects.values.contains { $0.typeName.hasSuffix(".ViewModel") })
            #expect(TraceAnalyzer().diagnose(second).isEmpty)
        }

        @Test func anUntrackedObjectIsNoLongerARoot() throws {
            let model = ViewModel()
            let pending = ViewModel()
            Lifeline.track(pending, name: "pending")
            Lifeline.untrack(pending)
            let trace = try Lifeline.record {
                Lifeline.track(model, name: "model")
                Lifeline.snapshot("tracked")
                Lifeline.untrack(model)
                Lifeline.snapshot("untracked")
            }
            #expect(trace.snapshot(at: "tracked")?.nodes.compactMap(\.name) == ["model"])
            #expect(trace.snapshot(at: "untracked")?.nodes.compactMap(\.name) == [])
            #expect(trace.snapshot(at: "untracked")?.nodes.contains { $0.kind == .root } == false)
            withExtendedLifetime((model, pending)) {}
        }

        @Test func aScopedRecordingKeepsItsLogWhereTheCallerSays() throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-kept-\(getpid()).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let trace = try Lifeline.record(keepingLogAt: path) {
                let subject = PassthroughSubject<Int, Never>()
                subject.sink { _ in }.cancel()
            }
            let kept = try TraceReader.read(contentsOf: path)
            #expect(kept.events == trace.events)
            #expect(!kept.events.isEmpty)
        }
    }
}
