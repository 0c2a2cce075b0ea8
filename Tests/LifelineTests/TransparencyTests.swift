import Dispatch
import OpenCombineShim
import Testing
import Lifeline
import LifelineLog

extension RecordingTests {
    /// Recording never changes what the traced program does, or when its objects die.
    @Suite struct TransparencyTests {
        enum Mode: String, CaseIterable { case untraced, automatic, operatorOnly, automaticWithSnapshots }

        /// What the program observably did: its journal, with the point at which the
        /// subscribe call returned.
        func run(keepsSubscription: Bool, mode: Mode) throws -> [String] {
            let journal = Journal()
            let body = {
                let queue = DispatchQueue(label: "lifeline.tests.later")
                let group = DispatchGroup()
                let gate = DispatchSemaphore(value: 0)
                do {
                    let subscriber = ForgetfulSubscriber(journal: journal, keepsSubscription: keepsSubscription)
                    let publisher = LaterPublisher(queue: queue, group: group, gate: gate)
                    if mode == .automaticWithSnapshots {
                        Lifeline.track(subscriber, name: "subscriber")
                        Lifeline.snapshot("before subscribe")
                    }
                    if mode == .operatorOnly {
                        publisher.lifeline("later").subscribe(subscriber)
                    } else {
                        publisher.subscribe(subscriber)
                    }
                    journal.write("subscribe returned")
                }
                journal.write("caller let go")
                gate.signal()
                _ = group.wait(timeout: .now() + 5)
                queue.sync {}
                journal.write("work drained")
            }
            switch mode {
            case .untraced: body()
            case .automatic: _ = try Lifeline.record(body)
            case .operatorOnly: _ = try Lifeline.record(options: RecordingOptions(automatic: false), body)
            case .automaticWithSnapshots: _ = try Lifeline.record(options: RecordingOptions(snapshots: .everyCall), body)
            }
            return journal.entries
        }

        @Test(arguments: Mode.allCases)
        func forgottenSubscriptionStillLosesItsSubscriber(mode: Mode) throws {
            let untraced = try run(keepsSubscription: false, mode: .untraced)
            #expect(untraced == ["received subscription", "subscribe returned", "deinit subscriber", "caller let go", "work drained"])
            #expect(try run(keepsSubscription: false, mode: mode) == untraced)
        }

        @Test(arguments: Mode.allCases)
        func fixedSubscriberStillGetsItsValue(mode: Mode) throws {
            let untraced = try run(keepsSubscription: true, mode: .untraced)
            #expect(untraced.contains("received value 42"))
            #expect(untraced.firstIndex(of: "received value 42")! < untraced.firstIndex(of: "deinit subscriber")!)
            #expect(try run(keepsSubscription: true, mode: mode) == untraced)
        }

        @Test func operatorModeSeesTheDroppedSubscriptionExactly() throws {
            let trace = try Lifeline.record(options: RecordingOptions(automatic: false)) {
                let subscriber = ForgetfulSubscriber(journal: Journal(), keepsSubscription: false)
                let gate = DispatchSemaphore(value: 0)
                LaterPublisher(queue: DispatchQueue(label: "lifeline.tests.later"), group: DispatchGroup(), gate: gate)
                    .lifeline("later").subscribe(subscriber)
                gate.signal()
            }
            let proxy = try #require(trace.objects.values.first { $0.shortTypeName == "LifelineSubscription" })
            #expect(proxy.label == "later")
            let receiveEnd = try #require(trace.events.first { $0.phase == .end && $0.kind.name == "receive_subscription" })
            let death = try #require(trace.events.first { $0.kind == .deallocation(object: proxy.id, evidence: .exact) })
            let subscribeEnd = try #require(trace.events.first { $0.phase == .end && $0.kind.name == "subscribe" })
            #expect(receiveEnd.seq < death.seq && death.seq < subscribeEnd.seq)
        }

        @Test func automaticModeFindsTheDeadSubscriberWithBounds() throws {
            let trace = try Lifeline.record {
                let subscriber = ForgetfulSubscriber(journal: Journal(), keepsSubscription: false)
                let gate = DispatchSemaphore(value: 0)
                LaterPublisher(queue: DispatchQueue(label: "lifeline.tests.later"), group: DispatchGroup(), gate: gate).subscribe(subscriber)
                gate.signal()
            }
            let subscriber = try #require(trace.objects.values.first { $0.shortTypeName == "ForgetfulSubscriber" })
            let subscription = try #require(trace.objects.values.first { $0.shortTypeName == "LaterSubscription" })
            let receiveEnd = try #require(trace.events.first {
                $0.phase == .end && $0.kind == .receiveSubscription(subscriber: subscriber.id, subscription: subscription.id)
            })
            for object in [subscriber, subscription] {
                let death = try #require(trace.events.first { $0.kind.name == "deallocation" && $0.kind.objects == [object.id] })
                guard case .deallocation(_, .observed(let aliveAt)) = death.kind else {
                    Issue.record("expected an observed deallocation for \(object.displayName)")
                    continue
                }
                #expect(aliveAt >= receiveEnd.seq && aliveAt < death.seq)
            }
        }
    }
}
