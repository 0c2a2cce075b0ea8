import LifelineSamples
import Testing

@Suite("The subscriber stories: sink-and-assign and additive-demand")
struct SubscriberStoryTests {
    @Test("sink-and-assign: both subscribers get all five values, sink also the completion")
    func sinkAndAssign() {
        let transcript = ConsoleTranscript(running: .sinkAndAssign)
        let sink = transcript.section(
            after: "sink(receiveCompletion:receiveValue:)", before: ["assign(to:on:)"])
        #expect(
            sink.lines == (1...5).map { "Received value: \($0)" } + ["Completed with: finished"])
        let assign = transcript.section(
            after: "assign(to:on:)", before: ["Releasing 2 cancellables"])
        #expect(assign.lines == (1...5).map { "ValuePrinter.value = \($0)" })
    }

    @Test("additive-demand: .max(2) then .max(3) leaves 5 outstanding")
    func demandAddsUp() {
        let subject = ConsoleTranscript(running: .additiveDemand)
            .section(after: "PassthroughSubject", before: ["Sequence publisher 1...6"])
        #expect(subject.lines.prefix(2) == [
            "request(max(2)): max(2) outstanding",
            "request(max(3)): max(5) outstanding",
        ])
    }

    @Test("additive-demand: the subject delivers exactly the 6 values demanded, then completes")
    func subjectDeliversWhatWasDemanded() {
        let subject = ConsoleTranscript(running: .additiveDemand)
            .section(after: "PassthroughSubject", before: ["Sequence publisher 1...6"])
        #expect(Self.receivedValues(in: subject) == Array(1...6))
        #expect(subject.containsInOrder([
            "Received 3, returning max(1): max(3) outstanding",
            "Received 6: max(0) outstanding",
            "subject.send(7)",
            "subject.send(8)",
            "subject.send(completion: .finished)",
            "Received completion finished after 6 values",
        ]))
    }

    @Test("additive-demand: the sequence delivers 2 values in the first request, 4 in the second")
    func sequenceDeliversInsideEachRequest() {
        let sequence = ConsoleTranscript(running: .additiveDemand)
            .section(after: "Sequence publisher 1...6")
        let secondRequest = sequence.section(after: "request(max(3)): max(3) outstanding")
        #expect(Self.receivedValues(in: sequence) == Array(1...6))
        #expect(Self.receivedValues(in: secondRequest) == [3, 4, 5, 6])
        #expect(secondRequest.lines.last == "Received completion finished after 6 values")
    }

    /// The values in lines such as `Received 3: max(2) outstanding`, in order.
    private static func receivedValues(in transcript: ConsoleTranscript) -> [Int] {
        transcript.lines.compactMap { line in
            guard line.hasPrefix("Received "), !line.hasPrefix("Received completion") else {
                return nil
            }
            return Int(line.dropFirst("Received ".count).prefix { $0.isNumber })
        }
    }
}
