#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

extension SampleScenario {
    /// Demand is additive: requesting again adds to what is outstanding.
    public static let additiveDemand = SampleScenario(
        name: "additive-demand",
        title: "Additive demand: .max(2), then .max(3), plus demand returned from receive(_:)",
        summary: """
            A custom subscriber requests .max(2) when it is subscribed and .max(3) later, which \
            leaves 5 outstanding (demand is additive, as Apple's documentation says; requesting \
            again is allowed, whatever seed 004 claims), and returns .max(1) from receive(_:) \
            for the value 3. On a PassthroughSubject that sends 1 to 8, it receives exactly \
            1 to 6: the subject drops 7 and 8 because nothing was demanded, and the completion \
            needs no demand. On the publisher of the sequence 1...6, the first two values \
            arrive inside the first request, the rest inside the second, and the sequence \
            finishes with its last value. Every value was demanded and every pipeline \
            completes, so a correct analysis finds nothing, and in particular flags no second \
            request.
            """,
        expectedDiagnoses: [],
        run: { console in
            let extraDemand: (Int) -> Subscribers.Demand = { $0 == 3 ? .max(1) : .none }

            console.print("PassthroughSubject")
            let subject = PassthroughSubject<Int, Never>()
            let subjectSubscriber = PacedSubscriber(
                console: console, initialDemand: .max(2), extraDemand: extraDemand)
            subject.subscribe(subjectSubscriber)
            subjectSubscriber.request(.max(3))
            for value in 1...8 {
                console.print("subject.send(\(value))")
                subject.send(value)
            }
            console.print("subject.send(completion: .finished)")
            subject.send(completion: .finished)

            console.print("Sequence publisher 1...6")
            let sequenceSubscriber = PacedSubscriber(
                console: console, initialDemand: .max(2), extraDemand: extraDemand)
            (1...6).publisher.subscribe(sequenceSubscriber)
            sequenceSubscriber.request(.max(3))
        }
    )
}
