import Testing
@testable import LifelineLog

@Suite struct TraceLineBuilderTests {
    /// Every digit count from 1 to 20, at both ends, written as JSON numbers that read back.
    static let numbers: [UInt64] = [0, 1, 9, 10, 99, 100, 101, 999, 1_000, 4_294_967_295, 4_294_967_296]
        + (1...19).flatMap { exponent -> [UInt64] in
            let power = (0..<exponent).reduce(UInt64(1)) { value, _ in value * 10 }
            return [power - 1, power, power + 1]
        }
        + [9_223_372_036_854_775_807, 9_223_372_036_854_775_808, 18_446_744_073_709_551_615]

    @Test(arguments: numbers) func aNumberIsWrittenInDecimalExactly(_ value: UInt64) throws {
        let event = TraceEvent(seq: value, time: value, thread: value, queue: nil, phase: .begin,
                               kind: .request(subscription: TraceObjectID(value), demand: .unlimited))
        let line = TraceLineEncoder.withLine(for: event) { String(decoding: $0, as: UTF8.self) }
        let decimal = String(value)
        #expect(line == "{\"seq\":\(decimal),\"t\":\(decimal),\"tid\":\(decimal),\"phase\":\"begin\",\"kind\":\"request\",\"subscription\":\(decimal),\"demand\":\"unlimited\"}\n")
    }
}
