import LifelineLog

/// Places the deliveries of a ``SequenceModel`` on marble timelines.
struct MarbleSVGLayout {
    private static let margin = 16
    private static let rowHeight = 52
    private static let foldWidth = 110
    private static let timeWidth = 760
    private static let marbleRadius = 12
    private static let top = 40

    /// One thing drawn on a timeline.
    private enum Mark {
        case start
        case value(String?, context: Int)
        case finished
        case failure(String)
        case cancel
    }

    /// One column: a step's marks, or a folded run.
    private enum Column {
        case marks(hop: Int, Mark, time: UInt64?)
        case fold(RepeatedRun)
    }

    private struct Hop {
        let subscriber: Int
        var source: Int?
    }

    private let model: SequenceModel
    private let axis: MarbleDiagramOptions.Axis
    private var canvas = SVGCanvas()
    /// The width of the timelines' names on the left: narrower when the page is tight.
    private var labelWidth = 250
    /// The width of one event-order column: narrower (down to a marble's width) when the
    /// page is tight.
    private var columnWidth = 30
    /// The width to fit.
    private let pageWidth = SequenceDiagramOptions.defaultPageWidth

    init(model: SequenceModel, axis: MarbleDiagramOptions.Axis) {
        self.model = model
        self.axis = axis
    }

    mutating func draw(title: String, appearance: SVGAppearance) -> String {
        var hops: [Int: Hop] = [:]
        var columns: [Column] = []
        // On the event-order axis a value passing synchronously down a pipeline is drawn at
        // one x on every timeline it reaches: a column shares the place of the one before it
        // while both are inside the same outermost call and on different timelines.
        var sharesPlace: [Bool] = []
        var openCalls = 0
        var timelinesAtPlace = Set<Int>()
        for step in model.steps {
            let outermost = openCalls == 0
            switch step.content {
            case .call: openCalls += 1
            case .callReturn: openCalls = max(openCalls - 1, 0)
            default: break
            }
            switch step.content {
            case .call(let caller, let callee, let kind, _):
                let mark: Mark, hop: Int
                switch kind {
                case .receiveSubscription: (mark, hop) = (.start, callee)
                case .value(let value): (mark, hop) = (.value(value, context: step.context ?? 0), callee)
                case .completion(.finished): (mark, hop) = (.finished, callee)
                case .completion(.failure(let error)): (mark, hop) = (.failure(error), callee)
                case .cancel:
                    guard let caller else { continue }
                    (mark, hop) = (.cancel, caller)
                case .subscribe, .request: continue
                }
                if hops[hop] == nil { hops[hop] = Hop(subscriber: hop, source: nil) }
                if case .start = mark { hops[hop]!.source = caller }
                if hops[hop]!.source == nil, case .value = mark { hops[hop]!.source = caller }
                let shares = axis == .sequence && !outermost && !columns.isEmpty && !timelinesAtPlace.contains(hop)
                if !shares { timelinesAtPlace = [] }
                timelinesAtPlace.insert(hop)
                columns.append(.marks(hop: hop, mark, time: step.time))
                sharesPlace.append(shares)
            case .fold(let run):
                columns.append(.fold(run))
                sharesPlace.append(false)
                timelinesAtPlace = []
            default:
                continue
            }
        }
        let rows = hops.keys.sorted()
        guard !rows.isEmpty else {
            canvas.text(DisplayText("No deliveries recorded.", limit: 40), x: Self.margin, y: Self.margin + 14, "tx")
            return canvas.document(width: 260, height: 48, root: "lifeline-marbles", title: title, appearance: appearance)
        }
        var rowOf: [Int: Int] = [:]
        for (index, hop) in rows.enumerated() { rowOf[hop] = index }

        if axis == .sequence {
            // Fit the page when it can be done: a narrower name column first, then columns
            // down to a marble's width.
            let folds = columns.count { if case .fold = $0 { return true } else { return false } }
            let marks = sharesPlace.count { !$0 } - folds
            let natural = 2 * Self.margin + labelWidth + columnWidth / 2 + marks * columnWidth + folds * Self.foldWidth + columnWidth
            if natural > pageWidth {
                labelWidth = 200
                let room = pageWidth - 2 * Self.margin - labelWidth - folds * Self.foldWidth - 45
                columnWidth = min(30, max(2 * Self.marbleRadius + 2, room / max(marks, 1)))
            }
        }
        let placed = positions(of: columns, sharingPlace: sharesPlace)
        let left = Self.margin + labelWidth
        let right = (placed.map { $0.x + $0.width }.max() ?? left) + columnWidth
        let caption = axis == .sequence ? "Event order →" : "Time since the first event →  (\(Self.duration(columns)))"
        canvas.text(DisplayText(caption, limit: 80), x: left, y: Self.margin + 8, "tm")

        // How many characters each value's text may have: as many as fit between its
        // neighbours on the same timeline (at least a marble's four).
        var textLimit: [Int: Int] = [:]
        var previousOnRow: [Int: (index: Int, x: Int)] = [:]
        var room: [Int: Int] = [:]
        for (index, (column, place)) in zip(columns, placed).enumerated() {
            guard case .marks(let hop, _, _) = column else { continue }
            let x = place.x + place.width / 2
            room[index] = x - (previousOnRow[hop]?.x ?? left)
            if let previous = previousOnRow[hop] { room[previous.index] = min(room[previous.index] ?? .max, x - previous.x) }
            previousOnRow[hop] = (index, x)
        }
        for (_, last) in previousOnRow { room[last.index] = min(room[last.index] ?? .max, right - (placed[last.index].x + placed[last.index].width / 2)) }
        for (index, space) in room { textLimit[index] = min(max(4, (2 * space - 10) / 7), 24) }

        var starts: [Int: Int] = [:], ends: [Int: Int] = [:]
        for (index, (column, place)) in zip(columns, placed).enumerated() {
            let x = place.x + place.width / 2
            switch column {
            case .marks(let hop, let mark, _):
                let y = Self.top + rowOf[hop]! * Self.rowHeight + Self.rowHeight / 2
                switch mark {
                case .start:
                    if starts[hop] == nil { starts[hop] = x }
                case .value(let value, let context):
                    drawMarble(value, context: context, x: x, y: y, limit: textLimit[index] ?? 4)
                case .finished:
                    canvas.line(x, y - 13, x, y + 13, "x", to: .foreground)
                    ends[hop] = ends[hop] ?? x
                case .failure(let error):
                    canvas.add("<g><title>\(XMLText.escape(DisplayText.clean("failure: " + error)))</title>", to: .foreground)
                    canvas.line(x - 8, y - 8, x + 8, y + 8, "ue x", to: .foreground)
                    canvas.line(x - 8, y + 8, x + 8, y - 8, "ue x", to: .foreground)
                    canvas.add("</g>", to: .foreground)
                    ends[hop] = ends[hop] ?? x
                case .cancel:
                    canvas.circle(x, y, 8, "tl", title: "cancel()", to: .foreground)
                    canvas.line(x - 6, y + 6, x + 6, y - 6, "tl", to: .foreground)
                    canvas.text(DisplayText("cancel", limit: 10), x: x, y: y + 22, "tm", anchor: .middle, to: .foreground)
                    ends[hop] = ends[hop] ?? x
                }
            case .fold(let run):
                let bandTop = Self.top + 2, bandHeight = rows.count * Self.rowHeight - 4
                canvas.rect(place.x + 4, bandTop, place.width - 8, bandHeight, "fd", radius: 4, to: .labels)
                canvas.add("<g><title>\(XMLText.escape(run.summary))</title>", to: .labels)
                canvas.text(DisplayText("× \(run.repeats)", limit: 20), x: x, y: bandTop + bandHeight / 2 - 2, "tx tb", anchor: .middle)
                canvas.text(DisplayText(run.noun, limit: 20), x: x, y: bandTop + bandHeight / 2 + 12, "tm", anchor: .middle)
                canvas.add("</g>", to: .labels)
            }
        }

        for hop in rows {
            let row = rowOf[hop]!, y = Self.top + row * Self.rowHeight + Self.rowHeight / 2
            let lane = model.lanes[hop]
            canvas.text(lane.oneLineName(fitting: labelWidth * 38 / 250), x: Self.margin, y: y - 2, "tx tb")
            if let source = hops[hop]!.source {
                canvas.text(model.lanes[source].oneLineName(fitting: labelWidth * 44 / 250, after: "from "), x: Self.margin, y: y + 12, "tm")
            }
            let start = starts[hop].map { $0 - 14 } ?? left
            if let end = ends[hop] {
                canvas.line(start, y, end, y, "tl", to: .lines)
            } else {
                canvas.line(start, y, right, y, "tl", to: .lines)
                canvas.path("M\(right - 8),\(y - 5)L\(right),\(y)L\(right - 8),\(y + 5)", "tl", to: .lines)
            }
        }
        // Only values are drawn in a thread's colour: the legend lists the contexts they ran on.
        var valueContexts = Set<Int>()
        for case .marks(_, .value(_, let context), _) in columns { valueContexts.insert(context) }
        let legend = canvas.legend(model.contexts.filter { valueContexts.contains($0.index) },
                                   at: Self.top + rows.count * Self.rowHeight + 10, left: Self.margin,
                                   width: right, swatch: "a", radius: 6)
        return canvas.document(width: max(right, legend.right) + Self.margin, height: legend.bottom + Self.margin, root: "lifeline-marbles",
                               title: title, appearance: appearance)
    }

    /// The left edge and width of each column: evenly spaced by event order (a fold is
    /// wider, to hold its label; a column that shares the place of the one before it is
    /// drawn there), or to scale by time (a fold spans the time it left out).
    private func positions(of columns: [Column], sharingPlace: [Bool]) -> [(x: Int, width: Int)] {
        let left = Self.margin + labelWidth + columnWidth / 2
        let times = columns.map { column -> UInt64? in
            if case .marks(_, _, let time) = column { return time }
            return nil
        }
        let known = times.compactMap { $0 }
        guard axis == .time, let first = known.min(), let last = known.max(), last > first else {
            var x = left, previousWidth = 0
            return zip(columns, sharingPlace).map { column, shares in
                if shares { return (x - previousWidth, previousWidth) }
                let width = if case .fold = column { Self.foldWidth } else { columnWidth }
                defer {
                    x += width
                    previousWidth = width
                }
                return (x, width)
            }
        }
        // Deliveries microseconds apart would hide each other, so on each timeline a mark
        // closer than a marble's width to the one before it moves right just enough. A mark
        // moved right moves every later mark with it (on every timeline), so an earlier event
        // is never drawn to the right of a later one; the scale then shrinks so that what was
        // moved still fits the axis.
        let byTime = columns.indices.filter { times[$0] != nil }.sorted { (times[$0]!, $0) < (times[$1]!, $1) }
        func place(scale: Double) -> [Int?] {
            var placed: [Int?] = Array(repeating: nil, count: columns.count)
            var lastOnTimeline: [Int: Int] = [:]
            var latest = Int.min
            for index in byTime {
                var x = left + columnWidth / 2 + Int((Double(times[index]! - first) * scale).rounded())
                x = max(x, latest)
                if case .marks(let hop, _, _) = columns[index], let previous = lastOnTimeline[hop] {
                    x = max(x, previous + 2 * Self.marbleRadius + 2)
                }
                if case .marks(let hop, _, _) = columns[index] { lastOnTimeline[hop] = x }
                latest = x
                placed[index] = x
            }
            return placed
        }
        let axisEnd = left + columnWidth / 2 + Self.timeWidth
        var scale = Double(Self.timeWidth) / Double(last - first)
        var scaled = place(scale: scale)
        if let furthest = scaled.compactMap({ $0 }).max(), furthest > axisEnd {
            let pushed = furthest - axisEnd
            if pushed < Self.timeWidth / 2 {
                scale *= Double(Self.timeWidth - pushed) / Double(Self.timeWidth)
                scaled = place(scale: scale)
            }
        }
        return scaled.indices.map { index in
            if let x = scaled[index] { return (x - columnWidth / 2, columnWidth) }
            let before = scaled[..<index].lazy.compactMap { $0 }.last.map { $0 + Self.marbleRadius + 4 } ?? left
            let after = scaled[(index + 1)...].lazy.compactMap { $0 }.first.map { $0 - Self.marbleRadius - 4 } ?? before
            return (before, max(after - before, 8))
        }
    }

    /// The time between the first and last drawn events, for the axis caption.
    private static func duration(_ columns: [Column]) -> String {
        let times = columns.compactMap { column -> UInt64? in
            if case .marks(_, _, let time) = column { return time }
            return nil
        }
        guard let first = times.min(), let last = times.max() else { return "0 ns" }
        let nanoseconds = last - first
        if nanoseconds < 10_000 { return "\(nanoseconds) ns" }
        if nanoseconds < 10_000_000 { return "\(nanoseconds / 1_000) µs" }
        if nanoseconds < 10_000_000_000 { return "\(nanoseconds / 1_000_000) ms" }
        return "\(nanoseconds / 1_000_000_000) s"
    }

    private mutating func drawMarble(_ value: String?, context: Int, x: Int, y: Int, limit: Int) {
        let colour = context % SVGStyleSheet.contextColourCount
        let tooltip = value.map { "value: \($0)" } ?? "value (description not recorded)"
        canvas.circle(x, y, Self.marbleRadius, "a\(colour)", title: tooltip, to: .bars)
        if let value {
            // Text wider than the marble is drawn on a halo, over the timeline.
            let text = DisplayText(value, limit: limit)
            canvas.text(text, x: x, y: y + 4, text.short.count > 4 ? "tx mv hl" : "tx mv", anchor: .middle, to: .foreground)
        }
    }
}
