/// Turns the time-stamp counter readings of a version 5 log's binary records into event times
/// (nanoseconds since the header's clock origin).
///
/// The calibration points are the header's `ticks` reference and every `clock` line. Between
/// two points a reading is interpolated; before the first and after the last it is extended
/// along the nearest segment, or, with a single point, at the rate the header measured at the
/// start. The result is continuous and never decreases as readings grow, so event times keep
/// the order of the counter. A log without `ticks` holds nanoseconds already.
struct TickConversion {
    struct Point {
        let tsc: UInt64
        let time: UInt64
    }

    /// Strictly increasing in both coordinates.
    private let points: [Point]
    private let perSecond: UInt64
    private let identity: Bool
    /// The segment the last conversion used: readings come mostly in order.
    private var hint = 0

    /// A conversion for a log with `reference` as its header's tick reference and `clocks` as
    /// its `clock` lines, in any order.
    init(reference: TraceHeader.TickReference?, clocks: [Point]) {
        guard let reference else {
            points = []
            perSecond = 0
            identity = true
            return
        }
        identity = false
        perSecond = max(reference.perSecond, 1)
        var increasing: [Point] = []
        for point in ([Point(tsc: reference.tsc, time: reference.time)] + clocks).sorted(by: { ($0.tsc, $0.time) < ($1.tsc, $1.time) }) {
            // A point that does not advance both clocks (a reading from a core whose counter
            // lags, a clock line repeated) would make a segment flat or backwards: left out.
            if let last = increasing.last, point.tsc <= last.tsc || point.time <= last.time { continue }
            increasing.append(point)
        }
        points = increasing
    }

    /// The event time of counter reading `tsc`.
    mutating func time(ofTicks tsc: UInt64) -> UInt64 {
        guard !identity else { return tsc }
        guard points.count > 1 else {
            return Self.extend(from: points[0], ticks: tsc, nanoseconds: 1_000_000_000, perTicks: perSecond)
        }
        if !(hint + 1 < points.count && points[hint].tsc <= tsc && tsc < points[hint + 1].tsc) {
            hint = segment(containing: tsc)
        }
        let from = points[hint], to = points[hint + 1]
        return Self.extend(from: from, ticks: tsc, nanoseconds: to.time - from.time, perTicks: to.tsc - from.tsc)
    }

    /// The segment (index of its first point) that holds `tsc`, or the nearest end segment.
    private func segment(containing tsc: UInt64) -> Int {
        var low = 0, high = points.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if points[middle].tsc <= tsc { low = middle } else { high = middle }
        }
        return low
    }

    /// `from.time` + (`tsc` − `from.tsc`) × `nanoseconds` / `perTicks`, exactly, at least 0.
    private static func extend(from: Point, ticks tsc: UInt64, nanoseconds: UInt64, perTicks: UInt64) -> UInt64 {
        let forward = tsc >= from.tsc
        let distance = forward ? tsc - from.tsc : from.tsc - tsc
        let product = distance.multipliedFullWidth(by: nanoseconds)
        guard product.high < perTicks else { return forward ? .max : 0 }
        let offset = perTicks.dividingFullWidth(product).quotient
        if forward {
            let (sum, overflow) = from.time.addingReportingOverflow(offset)
            return overflow ? .max : sum
        }
        return from.time > offset ? from.time - offset : 0
    }
}
