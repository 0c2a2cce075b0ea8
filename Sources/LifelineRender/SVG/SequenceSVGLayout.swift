/// Places a ``SequenceModel`` on an ``SVGCanvas``.
struct SequenceSVGLayout {
    private static let margin = 16
    private static let gutter = 80
    private static let headerHeight = 42
    private static let barHalfWidth = 5
    private static let depthShift = 5
    private static let noteWidth = 360
    private static let noteCharactersPerLine = 56
    private static let messageLimit = 72
    private static let valueLimit = 32

    private let model: SequenceModel
    private var canvas = SVGCanvas()
    private var laneX: [Int] = []
    private var boxWidth: [Int] = []
    private var right = 0
    /// The open activations of each lane, innermost last.
    private var openBars: [[(top: Int, depth: Int, context: Int)]] = []
    private var lifelineEnd: [Int?] = []

    init(model: SequenceModel) {
        self.model = model
    }

    mutating func draw(title: String, appearance: SVGAppearance) -> String {
        guard !model.lanes.isEmpty else {
            canvas.text(DisplayText("No events recorded.", limit: 40), x: Self.margin, y: Self.margin + 14, "tx")
            return canvas.document(width: 240, height: 48, root: "lifeline-sequence", title: title, appearance: appearance)
        }
        placeLanes()
        openBars = Array(repeating: [], count: model.lanes.count)
        lifelineEnd = Array(repeating: nil, count: model.lanes.count)
        let top = Self.margin + Self.headerHeight
        var y = top + 12
        for step in model.steps {
            y = draw(step, at: y)
        }
        let bottom = y + 10
        for lane in model.lanes.indices {
            canvas.line(laneX[lane], top, laneX[lane], lifelineEnd[lane] ?? bottom, "ln", to: .background)
            for bar in openBars[lane] {
                drawBar(lane: lane, top: bar.top, bottom: bottom - 4, depth: bar.depth, context: bar.context)
            }
        }
        drawHeaders()
        let legend = canvas.legend(model.contexts, at: bottom + 14, left: Self.margin, width: right, swatch: "f", radius: 2)
        return canvas.document(width: max(right, legend.right) + Self.margin, height: legend.bottom + Self.margin, root: "lifeline-sequence",
                               title: title, appearance: appearance)
    }

    // MARK: Lanes

    private mutating func placeLanes() {
        boxWidth = model.lanes.map { lane in
            let type = DisplayText.typeName(lane.typeLine, limit: 30), identity = DisplayText(lane.identityLine, limit: 34)
            let typeWidth: Int = DisplayText.estimatedWidth(of: type.short, fontSize: 13)
            let identityWidth: Int = DisplayText.estimatedWidth(of: identity.short, fontSize: 10)
            return max(max(typeWidth, identityWidth) + 20, 90)
        }
        var gaps: [Int] = []
        for index in 0..<(model.lanes.count - 1) {
            gaps.append((boxWidth[index] + boxWidth[index + 1]) / 2 + 20)
        }
        var rightOverhang = boxWidth[model.lanes.count - 1] / 2
        func need(_ width: Int, from a: Int, to b: Int) {
            let (low, high) = (min(a, b), max(a, b))
            guard high > low else { return }
            let share = (width + high - low - 1) / (high - low)
            for gap in low..<high { gaps[gap] = max(gaps[gap], share) }
        }
        for step in model.steps {
            switch step.content {
            case .call(let caller, let callee, let kind, _):
                let width = DisplayText.estimatedWidth(of: label(kind).short, fontSize: 12)
                if let caller {
                    need(width + 36, from: caller, to: callee)
                } else if callee < gaps.count {
                    gaps[callee] = max(gaps[callee], width + 52)
                } else {
                    rightOverhang = max(rightOverhang, width + 52)
                }
            case .callReturn(let caller?, let callee, _, _, let demand?):
                need(DisplayText.estimatedWidth(of: CallKind.name(of: demand), fontSize: 10) + 36, from: caller, to: callee)
            default:
                break
            }
        }
        var x = Self.margin + Self.gutter + boxWidth[0] / 2
        laneX = [x]
        for gap in gaps {
            x += gap
            laneX.append(x)
        }
        right = x + rightOverhang
    }

    private mutating func drawHeaders() {
        for lane in model.lanes {
            let x = laneX[lane.index], width = boxWidth[lane.index], top = Self.margin
            var details = [lane.object.typeName, lane.identityLine]
            if let origin = lane.object.originPhrase { details.append(origin) }
            canvas.add("<g><title>\(XMLText.escape(DisplayText.clean(details.joined(separator: " "))))</title>", to: .foreground)
            canvas.rect(x - width / 2, top, width, Self.headerHeight, "bx", radius: 4, to: .foreground)
            canvas.text(DisplayText.typeName(lane.typeLine, limit: 30), x: x, y: top + 18, "tx tb", anchor: .middle, to: .foreground)
            canvas.text(DisplayText(lane.identityLine, limit: 34), x: x, y: top + 33, "tm", anchor: .middle, to: .foreground)
            canvas.add("</g>", to: .foreground)
        }
    }

    // MARK: Rows

    private func label(_ kind: CallKind) -> DisplayText {
        DisplayText(kind.label(valueLimit: Self.valueLimit), limit: Self.messageLimit)
    }

    /// Draws one row whose top is `y`; returns the next row's top.
    private mutating func draw(_ step: SequenceStep, at y: Int) -> Int {
        let colour = (step.context ?? 0) % SVGStyleSheet.contextColourCount
        switch step.content {
        case .call(let caller, let callee, let kind, let depth):
            let arrowY = y + 20
            drawGutter(step, baseline: arrowY + 4)
            let calleeCentre = laneX[callee] + depth * Self.depthShift
            if let caller {
                let rightward = laneX[caller] < laneX[callee]
                let from = edge(of: caller, facing: rightward)
                let to = rightward ? calleeCentre - Self.barHalfWidth : calleeCentre + Self.barHalfWidth
                canvas.line(from, arrowY, to, arrowY, "s\(colour)", to: .arrows)
                arrowhead(at: to, arrowY, pointingRight: rightward, colour: colour, open: false)
                canvas.text(label(kind), x: (from + to) / 2, y: arrowY - 6, "tx hl", anchor: .middle)
            } else {
                let start = edge(of: callee, facing: true)
                let end = calleeCentre + Self.barHalfWidth
                let loopRight = max(start, end) + 22
                canvas.path("M\(start),\(arrowY - 10)H\(loopRight)V\(arrowY + 2)H\(end)", "s\(colour)")
                arrowhead(at: end, arrowY + 2, pointingRight: false, colour: colour, open: false)
                canvas.text(label(kind), x: loopRight + 6, y: arrowY - 2, "tx hl")
                right = max(right, loopRight + 6 + DisplayText.estimatedWidth(of: label(kind).short, fontSize: 12))
            }
            openBars[callee].append((top: arrowY, depth: depth, context: colour))
            return y + 30
        case .callReturn(let caller, let callee, _, _, let demand):
            guard let demand else {
                guard !step.citedBy.isEmpty else {
                    closeBar(callee, at: y + 4)
                    return y + 8
                }
                // A return a diagnosis cites gets a row of its own, so its number shows.
                drawGutter(step, baseline: y + 14)
                closeBar(callee, at: y + 10)
                return y + 22
            }
            let arrowY = y + 16
            drawGutter(step, baseline: arrowY + 3)
            if let caller {
                let calleeCentre = laneX[callee] + max(openBars[callee].count - 1, 0) * Self.depthShift
                let rightward = laneX[callee] < laneX[caller]
                let from = rightward ? calleeCentre + Self.barHalfWidth : calleeCentre - Self.barHalfWidth
                closeBar(callee, at: arrowY)
                let to = edge(of: caller, facing: !rightward)
                canvas.add("<line x1=\"\(from)\" y1=\"\(arrowY)\" x2=\"\(to)\" y2=\"\(arrowY)\" class=\"s\(colour)\" stroke-dasharray=\"5 3\"/>", to: .arrows)
                arrowhead(at: to, arrowY, pointingRight: rightward, colour: colour, open: true)
                canvas.text(DisplayText(CallKind.name(of: demand), limit: 30), x: (from + to) / 2, y: arrowY - 4, "tm hl", anchor: .middle)
            } else {
                closeBar(callee, at: arrowY)
                canvas.text(DisplayText("returned \(CallKind.name(of: demand))", limit: 40), x: laneX[callee] + 12, y: arrowY + 3, "tm hl")
            }
            return y + 24
        case .deallocation(let lane, let evidence):
            let crossY = y + 14
            drawGutter(step, baseline: crossY + 4)
            let x = laneX[lane]
            canvas.line(x - 7, crossY - 7, x + 7, crossY + 7, "x", to: .foreground)
            canvas.line(x - 7, crossY + 7, x + 7, crossY - 7, "x", to: .foreground)
            let note: String
            switch evidence {
            case .exact: note = "deallocated"
            case .observed(let aliveAt): note = "found deallocated (alive at #\(aliveAt))"
            }
            canvas.text(DisplayText(note, limit: 60), x: x + 12, y: crossY + 4, "tm hl")
            right = max(right, x + 12 + DisplayText.estimatedWidth(of: note, fontSize: 10))
            if lifelineEnd[lane] == nil { lifelineEnd[lane] = crossY }
            return y + 26
        case .mark(let text):
            let lineY = y + 18
            drawGutter(step, baseline: lineY + 4)
            let left = laneX[0] - boxWidth[0] / 2
            canvas.line(left, lineY, right, lineY, "mk", to: .lines)
            canvas.text(DisplayText("◆ " + text, limit: 60), x: left, y: lineY - 5, "tx tb hl")
            return y + 28
        case .fold(let run):
            let left = laneX[run.lanes.lowerBound] - 40, width = laneX[run.lanes.upperBound] + 40 - left
            canvas.rect(left, y + 6, width, 24, "fd", radius: 4, to: .labels)
            let summary = DisplayText("⋮ " + run.summary + " ⋮", limit: 80)
            canvas.text(summary, x: left + width / 2, y: y + 22, "tx", anchor: .middle)
            right = max(right, left + width / 2 + DisplayText.estimatedWidth(of: summary.short, fontSize: 12) / 2)
            return y + 36
        case .note(let note):
            return drawNote(note, at: y)
        }
    }

    /// The x where an arrow leaves or reaches `lane`: the edge of its innermost open
    /// activation, or the lifeline itself.
    private func edge(of lane: Int, facing rightward: Bool) -> Int {
        guard let bar = openBars[lane].last else { return laneX[lane] }
        let centre = laneX[lane] + bar.depth * Self.depthShift
        return rightward ? centre + Self.barHalfWidth : centre - Self.barHalfWidth
    }

    private mutating func closeBar(_ lane: Int, at y: Int) {
        guard let bar = openBars[lane].popLast() else { return }
        drawBar(lane: lane, top: bar.top, bottom: y, depth: bar.depth, context: bar.context)
    }

    private mutating func drawBar(lane: Int, top: Int, bottom: Int, depth: Int, context: Int) {
        let x = laneX[lane] + depth * Self.depthShift - Self.barHalfWidth
        canvas.rect(x, top, Self.barHalfWidth * 2, max(bottom - top, 4), "a\(context)", to: .bars)
    }

    private mutating func arrowhead(at x: Int, _ y: Int, pointingRight: Bool, colour: Int, open: Bool) {
        let back = pointingRight ? x - 8 : x + 8
        if open {
            canvas.path("M\(back),\(y - 4)L\(x),\(y)L\(back),\(y + 4)", "s\(colour)")
        } else {
            canvas.polygon([(x, y), (back, y - 4), (back, y + 4)], "f\(colour)")
        }
    }

    /// The sequence number, and the numbers of the diagnoses that cite the event.
    private mutating func drawGutter(_ step: SequenceStep, baseline: Int) {
        guard let seq = step.seq else { return }
        canvas.text(DisplayText("#\(seq)", limit: 24), x: Self.margin, y: baseline, "tm")
        for (position, number) in step.citedBy.enumerated() {
            let note = model.notes[number - 1]
            let x = Self.margin + 58 + position * 17, centreY = baseline - 4
            canvas.circle(x, centreY, 8, "v\(Self.severityClass(note))", title: note.heading, to: .foreground)
            canvas.text(DisplayText("\(number)", limit: 6), x: x, y: centreY + 4, "tw tb", anchor: .middle, to: .foreground)
        }
    }

    private static func severityClass(_ note: DiagnosisNote) -> String {
        switch note.diagnosis.severity {
        case .info: return "i"
        case .warning: return "w"
        case .error: return "e"
        }
    }

    private mutating func drawNote(_ note: DiagnosisNote, at y: Int) -> Int {
        var lines = Self.wrap(note.heading, width: Self.noteCharactersPerLine - 6, maxLines: 2).map { ($0, "tx tb") }
        lines += Self.wrap(note.diagnosis.message, width: Self.noteCharactersPerLine, maxLines: 6).map { ($0, "tx") }
        lines += Self.wrap("Fix: " + note.diagnosis.fix, width: Self.noteCharactersPerLine, maxLines: 6).map { ($0, "tx") }
        lines.append((note.evidenceLine, "tm"))
        let x = laneX[note.lane] + 14, top = y + 6, height = lines.count * 16 + 10
        canvas.rect(x, top, Self.noteWidth, height, "nt", radius: 3, to: .foreground)
        canvas.rect(x, top, 4, height, "v\(Self.severityClass(note))", to: .foreground)
        for (index, line) in lines.enumerated() {
            canvas.text(DisplayText(line.0, limit: Self.noteCharactersPerLine + 4), x: x + 12, y: top + 18 + index * 16, line.1, to: .foreground)
        }
        right = max(right, x + Self.noteWidth)
        return top + height + 8
    }

    /// `text`, cleaned, broken into lines of at most `width` characters at spaces, with an
    /// ellipsis when it needs more than `maxLines`.
    static func wrap(_ text: String, width: Int, maxLines: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in DisplayText.clean(text).split(separator: " ", omittingEmptySubsequences: true) {
            var word = Substring(word)
            while word.count > width {
                if !current.isEmpty { lines.append(current); current = "" }
                lines.append(String(word.prefix(width)))
                word = word.dropFirst(width)
            }
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
            if lines.count > maxLines { break }
        }
        if !current.isEmpty { lines.append(current) }
        if lines.count > maxLines {
            lines = Array(lines.prefix(maxLines))
            lines[maxLines - 1] = String(lines[maxLines - 1].prefix(width - 1)) + "…"
        }
        return lines
    }
}
