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
    /// The tightest packing: its gaps grow by at most ``packedLabelGaps`` for a label, and its
    /// headings are the shortest (a section of a whole log's picture, which holds as many
    /// lanes as fit, is drawn so).
    static let tightestPacking = 4
    /// The tightest packing whose headings keep most type names whole: a picture whose
    /// objects do not fit the page at it folds its operators instead.
    static let readablePacking = 3
    /// The first packing whose heading boxes hug their text and sit closest together.
    private static let tightBoxes = 3
    /// The most each packing widens one gap for a label (none for packing 0).
    private static let packedLabelGaps = [Int.max, 130, 100, 76, 64]

    private let model: SequenceModel
    /// How tightly lanes are packed to fit the page, 0 (not at all) to ``tightestPacking``
    /// (see ``placement(of:packing:)``).
    private let packing: Int
    private var packed: Bool { packing > 0 }
    /// The width to fit; notes are kept inside it.
    private let pageWidth: Int
    private var canvas = SVGCanvas()
    private var laneX: [Int] = []
    private var boxWidth: [Int] = []
    private var right = 0
    /// The right edge the lanes and their call labels need, before notes widen the page.
    private var lanesRight = 0
    /// The open activations of each lane, innermost last, with the thread of each call and,
    /// for one carried over from the section above, the call.
    private var openBars: [[(top: Int, depth: Int, context: Int, thread: UInt64?, carried: CarriedActivation?)]] = []
    private var lifelineEnd: [Int?] = []
    /// The bottom of the last row that drew on each lane an arrow or the end of an activation
    /// (the top of its lifeline before any): where an open bar that waits starts.
    private var lastCallBottom: [Int] = []

    /// Lays out `model`, packing the lanes when they would not fit `pageWidth` otherwise.
    init(model: SequenceModel, pageWidth: Int = SequenceDiagramOptions.defaultPageWidth) {
        self.model = model
        self.pageWidth = pageWidth
        packing = model.lanes.isEmpty ? 0
            : (0..<Self.tightestPacking).first { Self.lanesWidth(of: model, packing: $0) <= pageWidth } ?? Self.tightestPacking
    }

    mutating func draw(title: String, appearance: SVGAppearance) -> String {
        guard !model.lanes.isEmpty else {
            canvas.text(DisplayText("No events recorded.", limit: 40), x: Self.margin, y: Self.margin + 14, "tx")
            return canvas.document(width: 240, height: 48, root: "lifeline-sequence", title: title, appearance: appearance)
        }
        let bottom = drawSection(top: Self.margin)
        return Self.document(of: &canvas, contexts: model.calledContexts, bottom: bottom, right: right, title: title, appearance: appearance)
    }

    /// Draws `sections` (``SequenceModel/sections(fitting:)``) one above the other on one
    /// page, each under the headings of its own lanes.
    static func draw(sections: [SequenceModel], pageWidth: Int, title: String, appearance: SVGAppearance) -> String {
        var (canvas, bottom, right, contexts) = layOut(sections: sections, pageWidth: pageWidth)
        return document(of: &canvas, contexts: contexts, bottom: bottom, right: right, title: title, appearance: appearance)
    }

    /// The height of the page ``draw(sections:pageWidth:title:appearance:)`` draws.
    static func height(of sections: [SequenceModel], pageWidth: Int) -> Int {
        var (canvas, bottom, right, contexts) = layOut(sections: sections, pageWidth: pageWidth)
        return canvas.legend(contexts, at: bottom + 14, left: margin, width: right, swatch: "f", radius: 2).bottom + margin
    }

    /// `sections` drawn one above the other: the canvas, the bottom of the last section's
    /// lifelines, the right edge, and the contexts of the legend.
    private static func layOut(sections: [SequenceModel], pageWidth: Int) -> (SVGCanvas, Int, Int, [ExecutionContext]) {
        // Sections share the model's contexts: a context is in the legend when any section's calls ran on it.
        let called = Set(sections.flatMap(\.calledContexts))
        var canvas = SVGCanvas()
        var bottom = margin - sectionGap, right = 0
        for section in sections {
            var layout = SequenceSVGLayout(model: section, pageWidth: pageWidth)
            swap(&layout.canvas, &canvas)
            bottom = layout.drawSection(top: bottom + sectionGap)
            swap(&layout.canvas, &canvas)
            right = max(right, layout.right)
        }
        return (canvas, bottom, right, sections[0].contexts.filter(called.contains))
    }

    /// The space between two sections of one page.
    private static let sectionGap = 20

    /// The document of `canvas`, with the legend of `contexts` under the rows ending at
    /// `bottom`.
    private static func document(
        of canvas: inout SVGCanvas, contexts: [ExecutionContext], bottom: Int, right: Int, title: String, appearance: SVGAppearance
    ) -> String {
        let legend = canvas.legend(contexts, at: bottom + 14, left: margin, width: right, swatch: "f", radius: 2)
        return canvas.document(width: max(right, legend.right) + margin, height: legend.bottom + margin, root: "lifeline-sequence",
                               title: title, appearance: appearance)
    }

    /// Draws the headings at `top`, every row under them and the lifelines; returns the
    /// bottom of the lifelines.
    private mutating func drawSection(top headingTop: Int) -> Int {
        placeLanes()
        openBars = Array(repeating: [], count: model.lanes.count)
        lifelineEnd = Array(repeating: nil, count: model.lanes.count)
        let top = headingTop + Self.headerHeight
        lastCallBottom = Array(repeating: top, count: model.lanes.count)
        var y = top + 12
        if !model.carriedActivations.isEmpty {
            openCarriedBars(top: top)
            y += Self.continuationHeight
        }
        var row = 0
        while row < model.steps.count {
            let step = model.steps[row]
            row += 1
            if case .wait(let first) = step.content {
                var waits = [first]
                while row < model.steps.count, case .wait(let wait) = model.steps[row].content {
                    waits.append(wait)
                    row += 1
                }
                y = drawWaits(waits, at: y)
                continue
            }
            let next = draw(step, at: y)
            switch step.content {
            case .call(let caller, let callee, _, _):
                lastCallBottom[callee] = next
                if let caller { lastCallBottom[caller] = next }
            case .callReturn(let caller, let callee, _, _, let demand):
                // A return that hands back no demand draws nothing at its caller.
                lastCallBottom[callee] = next
                if let caller, demand != nil { lastCallBottom[caller] = next }
            default:
                break
            }
            y = next
        }
        let bottom = y + 10
        for lane in model.lanes.indices {
            canvas.line(laneX[lane], top, laneX[lane], lifelineEnd[lane] ?? bottom, "ln", to: .background)
            for bar in openBars[lane] {
                drawBar(lane: lane, top: bar.top, bottom: bottom - 4, depth: bar.depth, context: bar.context, carried: bar.carried,
                        continuesBelow: model.continuesBelow)
            }
        }
        drawHeaders(top: headingTop)
        return bottom
    }

    /// The height of the dashed end of an activation that goes on in the section above or
    /// below, and the room the first row leaves for it.
    private static let continuationHeight = 12

    /// Opens the activations of the calls still running from the section above, at the top
    /// of their lanes, each lane's labelled with the calls' numbers (`⋯ @123`), so that the
    /// arrow that began it is found above.
    private mutating func openCarriedBars(top: Int) {
        var seqsOfLane: [Int: [String]] = [:]
        for carried in model.carriedActivations {
            let colour = (carried.context ?? 0) % SVGStyleSheet.contextColourCount
            openBars[carried.lane].append((top: top + 2, depth: carried.depth, context: colour, thread: carried.thread, carried: carried))
            seqsOfLane[carried.lane, default: []].append(carried.seq.map { "@\($0)" } ?? "a call")
        }
        for (lane, seqs) in seqsOfLane.sorted(by: { $0.key < $1.key }) {
            let depth = openBars[lane].map(\.depth).max() ?? 0
            canvas.text(DisplayText("⋯ " + seqs.joined(separator: ", "), limit: 40), x: laneX[lane] + depth * Self.depthShift + Self.barHalfWidth + 4,
                        y: top + Self.continuationHeight + 4, "tm hl")
        }
    }

    // MARK: Lanes

    /// Where the lanes go: each lane's centre, its heading box's width, and the right edge
    /// the lanes and their labels need.
    private struct LanePlacement {
        var laneX: [Int]
        var boxWidth: [Int]
        var right: Int
    }

    /// How wide the lanes of `model` are laid out, from the left margin to the right edge of
    /// the rightmost lane's labels.
    static func lanesWidth(of model: SequenceModel, packing: Int) -> Int {
        guard !model.lanes.isEmpty else { return 0 }
        return placement(of: model, packing: packing).right + margin
    }

    /// The least ``lanesWidth(of:packing:)`` can be for `laneCount` lanes, whatever they are
    /// called and whatever calls them: every heading box and gap at its narrowest.
    static func narrowestLanesWidth(laneCount: Int) -> Int {
        guard laneCount > 0 else { return 0 }
        return margin + gutter + narrowestBox + (laneCount - 1) * (narrowestBox + tightestGapPadding) + margin
    }

    /// The narrowest heading box, when lanes are packed.
    private static let narrowestBox = 72
    /// What a gap adds to the half-widths of the boxes beside it, at the tightest packing.
    private static let tightestGapPadding = 8

    /// Places the lanes. Unpacked, every gap holds the widest label drawn across it.
    /// Packed (to fit a page), headings are shortened and a gap grows by at most
    /// ``packedLabelGaps`` for a label: a longer label overhangs the lanes beside it on its
    /// halo, which is readable because each row carries one label.
    private static func placement(of model: SequenceModel, packing: Int) -> LanePlacement {
        let packed = packing > 0, packedLabelGap = packedLabelGaps[packing]
        let typeLimit = headingLimits(packing).type, identityLimit = headingLimits(packing).identity
        let boxWidth = model.lanes.map { lane in
            let type = DisplayText.typeName(lane.typeLine, limit: typeLimit)
            let limit = lane.isGroup ? identityLimit + 6 : identityLimit
            let identity = DisplayText(lane.identityLine(fitting: limit), limit: limit)
            let typeWidth: Int = DisplayText.estimatedWidth(of: type.short, fontSize: 13)
            let identityWidth: Int = DisplayText.estimatedWidth(of: identity.short, fontSize: 11)
            return max(max(typeWidth, identityWidth) + (packing >= tightBoxes ? 14 : 20), packed ? narrowestBox : 90)
        }
        var gaps: [Int] = []
        for index in 0..<(model.lanes.count - 1) {
            gaps.append((boxWidth[index] + boxWidth[index + 1]) / 2 + (packing >= tightBoxes ? tightestGapPadding : packed ? 12 : 20))
        }
        var rightOverhang = boxWidth[model.lanes.count - 1] / 2
        // What each arrow's label needs from the gaps it spans, widened below all at once: one
        // gap at a time per arrow costs lanes × rows on a wide picture.
        var needs: [(low: Int, high: Int, share: Int)] = []
        func need(_ width: Int, from a: Int, to b: Int) {
            let (low, high) = (min(a, b), max(a, b))
            guard high > low else { return }
            let width = packed ? min(width, packedLabelGap * (high - low)) : width
            needs.append((low, high, (width + high - low - 1) / (high - low)))
        }
        // How far right of a lane, or of the middle of two, each label reaches: one that
        // overhangs the packed gaps near the last lane may reach past it.
        var reaches: [(a: Int, b: Int, reach: Int)] = []
        for step in model.steps {
            switch step.content {
            case .call(let caller, let callee, let kind, _):
                let width = DisplayText.estimatedWidth(of: label(kind).short, fontSize: 12)
                if let caller {
                    need(width + 36, from: caller, to: callee)
                    reaches.append((caller, callee, width / 2))
                } else if callee < gaps.count {
                    gaps[callee] = max(gaps[callee], packed ? min(width + 52, packedLabelGap) : width + 52)
                    reaches.append((callee, callee, width + 52))
                } else {
                    rightOverhang = max(rightOverhang, width + 52)
                }
            case .callReturn(let caller?, let callee, _, _, let demand?):
                let width = DisplayText.estimatedWidth(of: CallKind.name(of: demand), fontSize: 11)
                need(width + 36, from: caller, to: callee)
                reaches.append((caller, callee, width / 2))
            default:
                break
            }
        }
        widen(&gaps, toMeet: needs)
        var x = margin + gutter + boxWidth[0] / 2
        var laneX = [x]
        for gap in gaps {
            x += gap
            laneX.append(x)
        }
        let right = reaches.reduce(x + rightOverhang) { right, label in max(right, (laneX[label.a] + laneX[label.b]) / 2 + label.reach) }
        return LanePlacement(laneX: laneX, boxWidth: boxWidth, right: right)
    }

    /// Widens each gap to the largest share any of `needs` asks of it (a need spans the gaps
    /// from `low` up to, not including, `high`). The largest needs go first, and a gap they set
    /// is skipped from then on, so each gap is set once: about n log n for n needs.
    private static func widen(_ gaps: inout [Int], toMeet needs: [(low: Int, high: Int, share: Int)]) {
        // The first gap at or after each index that no need has set yet.
        var unset = Array(0...gaps.count)
        func firstUnset(from index: Int) -> Int {
            var root = index
            while unset[root] != root { root = unset[root] }
            var current = index
            while unset[current] != root {
                let next = unset[current]
                unset[current] = root
                current = next
            }
            return root
        }
        for need in needs.sorted(by: { $0.share > $1.share }) {
            var gap = firstUnset(from: need.low)
            while gap < need.high {
                gaps[gap] = max(gaps[gap], need.share)
                unset[gap] = gap + 1
                gap = firstUnset(from: gap + 1)
            }
        }
    }

    /// How many characters a heading's type and identity lines keep at each packing.
    private static func headingLimits(_ packing: Int) -> (type: Int, identity: Int) {
        switch packing {
        case 0: return (30, 34)
        case 1: return (20, 24)
        case 2, 3: return (16, 20)
        default: return (13, 15)
        }
    }

    private mutating func placeLanes() {
        let placement = Self.placement(of: model, packing: packing)
        laneX = placement.laneX
        boxWidth = placement.boxWidth
        right = placement.right
        lanesRight = placement.right
    }

    private mutating func drawHeaders(top: Int) {
        for lane in model.lanes {
            let x = laneX[lane.index], width = boxWidth[lane.index]
            canvas.add("<g><title>\(XMLText.escape(DisplayText.clean(lane.details)))</title>", to: .foreground)
            canvas.rect(x - width / 2, top, width, Self.headerHeight, "bx", radius: 4, to: .foreground)
            let limits = Self.headingLimits(packing)
            let typeLimit = limits.type, identityLimit = limits.identity + (lane.isGroup ? 6 : 0)
            canvas.text(DisplayText.typeName(lane.typeLine, limit: typeLimit), x: x, y: top + 18, "tx tb", anchor: .middle, to: .foreground)
            canvas.text(DisplayText(lane.identityLine(fitting: identityLimit), limit: identityLimit), x: x, y: top + 33, "tm", anchor: .middle,
                        to: .foreground)
            canvas.add("</g>", to: .foreground)
        }
    }

    // MARK: Rows

    private static func label(_ kind: CallKind) -> DisplayText {
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
                canvas.text(Self.label(kind), x: (from + to) / 2, y: arrowY - 6, "tx hl", anchor: .middle)
            } else {
                let start = edge(of: callee, facing: true)
                let end = calleeCentre + Self.barHalfWidth
                let loopRight = max(start, end) + 22
                canvas.path("M\(start),\(arrowY - 10)H\(loopRight)V\(arrowY + 2)H\(end)", "s\(colour)")
                arrowhead(at: end, arrowY + 2, pointingRight: false, colour: colour, open: false)
                canvas.text(Self.label(kind), x: loopRight + 6, y: arrowY - 2, "tx hl")
                right = max(right, loopRight + 6 + DisplayText.estimatedWidth(of: Self.label(kind).short, fontSize: 12))
            }
            openBars[callee].append((top: arrowY, depth: depth, context: colour, thread: step.thread, carried: nil))
            return y + 30
        case .callReturn(let caller, let callee, _, _, let demand):
            guard let demand else {
                guard !step.citedBy.isEmpty else {
                    closeBar(callee, at: y + 4, thread: step.thread)
                    return y + 8
                }
                // A return a diagnosis cites gets a row of its own, so its number shows.
                drawGutter(step, baseline: y + 14)
                closeBar(callee, at: y + 10, thread: step.thread)
                return y + 22
            }
            let arrowY = y + 16
            drawGutter(step, baseline: arrowY + 3)
            if let caller {
                let depth = closeBar(callee, at: arrowY, thread: step.thread) ?? 0
                let calleeCentre = laneX[callee] + depth * Self.depthShift
                let rightward = laneX[callee] < laneX[caller]
                let from = rightward ? calleeCentre + Self.barHalfWidth : calleeCentre - Self.barHalfWidth
                let to = edge(of: caller, facing: !rightward)
                canvas.add("<line x1=\"\(from)\" y1=\"\(arrowY)\" x2=\"\(to)\" y2=\"\(arrowY)\" class=\"s\(colour)\" stroke-dasharray=\"5 3\"/>", to: .arrows)
                arrowhead(at: to, arrowY, pointingRight: rightward, colour: colour, open: true)
                canvas.text(DisplayText(CallKind.name(of: demand), limit: 30), x: (from + to) / 2, y: arrowY - 4, "tm hl", anchor: .middle)
            } else {
                closeBar(callee, at: arrowY, thread: step.thread)
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
            case .observed(let aliveAt): note = "found deallocated (alive at @\(aliveAt))"
            }
            let noteWidth = DisplayText.estimatedWidth(of: note, fontSize: 11)
            if x + 12 + noteWidth > max(lanesRight, pageWidth - Self.margin) && x - 12 - noteWidth > Self.margin + Self.gutter {
                // Written to the left of the cross, so the page does not widen for it.
                canvas.text(DisplayText(note, limit: 60), x: x - 12, y: crossY + 4, "tm hl", anchor: .end)
            } else {
                canvas.text(DisplayText(note, limit: 60), x: x + 12, y: crossY + 4, "tm hl")
                right = max(right, x + 12 + noteWidth)
            }
            if lifelineEnd[lane] == nil && model.lanes[lane].endsAtDeath { lifelineEnd[lane] = crossY }
            return y + 26
        case .mark(let text):
            drawGutter(step, baseline: y + 22)
            return drawDivider("◆ " + text, at: y, limit: 60)
        case .logEnd(let text):
            // Under the waits, whose bars all end above it, and as long as the page is wide; the
            // calls still running when the log ended end above it.
            for lane in model.lanes.indices {
                while !openBars[lane].isEmpty { closeBar(lane, at: y + 2, thread: openBars[lane].last?.thread) }
            }
            let room = max(right, pageWidth - Self.margin) - (laneX[0] - boxWidth[0] / 2)
            return drawDivider("‖ " + text, at: y, limit: DisplayText.characters(fitting: room, fontSize: 13))
        case .fold(let run):
            let left = laneX[run.lanes.lowerBound] - 40, width = laneX[run.lanes.upperBound] + 40 - left
            canvas.rect(left, y + 6, width, 24, "fd", radius: 4, to: .labels)
            let summary = DisplayText("⋮ " + run.summary + " ⋮", limit: 80)
            let half = DisplayText.estimatedWidth(of: summary.short, fontSize: 12) / 2
            // Centred on the run, but kept inside the page when the lanes leave room for it.
            let centre = max(min(left + width / 2, max(lanesRight, pageWidth - Self.margin) - half), Self.margin + Self.gutter + half)
            canvas.text(summary, x: centre, y: y + 22, "tx", anchor: .middle)
            right = max(right, centre + half)
            return y + 36
        case .note(let note):
            return drawNote(note, at: y)
        case .wait(let wait):
            return drawWaits([wait], at: y)
        }
    }

    /// Draws a line across the page with `text`, cut to `limit` characters, on it at its left: a
    /// mark, or where the log ended.
    private mutating func drawDivider(_ text: String, at y: Int, limit: Int) -> Int {
        let lineY = y + 18
        let left = laneX[0] - boxWidth[0] / 2
        canvas.line(left, lineY, right, lineY, "mk", to: .lines)
        canvas.text(DisplayText(text, limit: limit), x: left, y: lineY - 5, "tx tb hl")
        return y + 28
    }

    /// Draws `waits`, the rows under all others that say what each stage waits on (rightmost
    /// lane first): those whose words go rightwards first, in that order, then those whose
    /// words go leftwards, leftmost lane first, so that words mostly cross bars that ended
    /// above them. Returns the next row's top.
    private mutating func drawWaits(_ waits: [WaitNote], at y: Int) -> Int {
        let leftwards = Set(waits.map(\.lane).filter { wordsGoLeft(onLane: $0) })
        let order = waits.filter { !leftwards.contains($0.lane) } + waits.filter { leftwards.contains($0.lane) }.sorted { $0.lane < $1.lane }
        var pending = Dictionary(order.map { ($0.lane, $0) }) { first, _ in first }
        var y = y
        for wait in order {
            pending[wait.lane] = nil
            y = drawWait(wait, at: y, leftwards: leftwards.contains(wait.lane), pending: pending)
        }
        return y
    }

    /// The right edge of `lane`'s innermost open activation, or of its bar.
    private func barRight(ofLane lane: Int) -> Int {
        laneX[lane] + (openBars[lane].map(\.depth).max() ?? 0) * Self.depthShift + Self.barHalfWidth
    }

    /// The room for a wait's words right of `lane`'s bar, and left of it, in pixels.
    private func wordRoom(onLane lane: Int) -> (right: Int, left: Int) {
        (max(right, pageWidth - Self.margin) - barRight(ofLane: lane) - 8, laneX[lane] - Self.barHalfWidth - 8 - Self.margin - Self.gutter)
    }

    /// Whether a wait's words beside `lane` are written leftwards: fewer than
    /// ``narrowestWait`` pixels are left on its right, and there are enough on its left.
    private func wordsGoLeft(onLane lane: Int) -> Bool {
        let room = wordRoom(onLane: lane)
        return room.right < Self.narrowestWait && room.left >= Self.narrowestWait
    }

    /// Draws what the stage of `wait`'s lane waits on: its words beside the lane (bold where
    /// the chain ends), wrapped to the page, `leftwards` or rightwards, and a dashed bar, open
    /// at its foot, from the lane's last arrow down to them. A lane whose call never returned
    /// has that call's activation run down to them instead. The words cross no bar: the
    /// activations of other lanes they would cross end above them, and the bars of the lanes
    /// whose waits are `pending` (drawn below) break off above them and go on below.
    private mutating func drawWait(_ wait: WaitNote, at y: Int, leftwards: Bool, pending: [Int: WaitNote]) -> Int {
        let lane = wait.lane
        let ownBarRight = barRight(ofLane: lane), room = wordRoom(onLane: lane)
        let width = DisplayText.characters(fitting: max(leftwards ? room.left : room.right, Self.narrowestWait), fontSize: 12)
        let lines = Self.wrap(wait.text, width: width, maxLines: 3).map { DisplayText($0, limit: DisplayText.nameLimit) }
        let top = y + 6, bottom = top + lines.count * 15 + 2
        let wordsWidth = lines.map { DisplayText.estimatedWidth(of: $0.short, fontSize: 12) }.max() ?? 0
        let start = leftwards ? laneX[lane] - Self.barHalfWidth - 8 - wordsWidth : ownBarRight + 8
        for crossed in model.lanes.indices where crossed != lane
            && barRight(ofLane: crossed) >= start && laneX[crossed] - Self.barHalfWidth <= start + wordsWidth {
            if !openBars[crossed].isEmpty {
                while !openBars[crossed].isEmpty { closeBar(crossed, at: top, thread: openBars[crossed].last?.thread) }
            } else if let later = pending[crossed] {
                drawOpenBar(lane: crossed, from: lastCallBottom[crossed], to: top, saying: later.text)
            }
            if pending[crossed] != nil { lastCallBottom[crossed] = bottom }
        }
        let className = wait.endsChain ? "tx tb hl" : "tx hl"
        for (index, line) in lines.enumerated() {
            if leftwards {
                canvas.text(line, x: start + wordsWidth, y: top + 12 + index * 15, className, anchor: .end)
            } else {
                canvas.text(line, x: start, y: top + 12 + index * 15, className)
                right = max(right, start + DisplayText.estimatedWidth(of: line.short, fontSize: 12))
            }
        }
        if openBars[lane].isEmpty {
            drawOpenBar(lane: lane, from: lastCallBottom[lane], to: bottom, saying: wait.text)
        } else {
            while !openBars[lane].isEmpty { closeBar(lane, at: bottom, thread: openBars[lane].last?.thread) }
        }
        return bottom + 6
    }

    /// Draws a dashed bar on `lane` from `top` to `bottom`, open at its foot, with what the
    /// stage waits on as its tooltip.
    private mutating func drawOpenBar(lane: Int, from top: Int, to bottom: Int, saying text: String) {
        guard bottom > top else { return }
        let left = laneX[lane] - Self.barHalfWidth
        canvas.add("<path d=\"M\(left),\(bottom)V\(top)H\(left + Self.barHalfWidth * 2)V\(bottom)\" class=\"fd\"><title>"
                   + XMLText.escape(DisplayText.clean("waiting: " + text)) + "</title></path>", to: .bars)
    }

    /// The narrowest a wait's words are wrapped to, in pixels.
    private static let narrowestWait = 160

    /// The x where an arrow leaves or reaches `lane`: the edge of its innermost open
    /// activation, or the lifeline itself.
    private func edge(of lane: Int, facing rightward: Bool) -> Int {
        guard let bar = openBars[lane].last else { return laneX[lane] }
        let centre = laneX[lane] + bar.depth * Self.depthShift
        return rightward ? centre + Self.barHalfWidth : centre - Self.barHalfWidth
    }

    /// Closes the activation on `lane` that a return on `thread` ends: the innermost one that
    /// thread opened, or the innermost when none is known to be its. Activations of one thread
    /// close in reverse order; two threads inside one object at once (a concurrent delivery)
    /// close in whatever order they return. Returns the closed activation's depth.
    @discardableResult
    private mutating func closeBar(_ lane: Int, at y: Int, thread: UInt64?) -> Int? {
        let index = openBars[lane].lastIndex { $0.thread == thread } ?? openBars[lane].indices.last
        guard let index else { return nil }
        let bar = openBars[lane].remove(at: index)
        drawBar(lane: lane, top: bar.top, bottom: y, depth: bar.depth, context: bar.context, carried: bar.carried)
        return bar.depth
    }

    /// Draws an activation from `top` to `bottom`. One that goes on from the section above
    /// (`carried`) has a dashed top, and one that goes on in the section below a dashed
    /// bottom; each says so in its tooltip.
    private mutating func drawBar(
        lane: Int, top: Int, bottom: Int, depth: Int, context: Int, carried: CarriedActivation? = nil, continuesBelow: Bool = false
    ) {
        let x = laneX[lane] + depth * Self.depthShift - Self.barHalfWidth, width = Self.barHalfWidth * 2
        let stub = Self.continuationHeight
        var solidTop = top, solidBottom = max(bottom, top + 4)
        func dashed(_ y: Int, _ title: String) {
            canvas.add("<rect x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(stub)\" class=\"a\(context)\" stroke-dasharray=\"2 2\" "
                       + "fill-opacity=\"0.5\"><title>\(XMLText.escape(DisplayText.clean(title)))</title></rect>", to: .bars)
        }
        if let carried, solidBottom - solidTop > stub {
            dashed(solidTop, "continues " + carried.caption + " from the section above")
            solidTop += stub
        }
        if continuesBelow, solidBottom - solidTop > stub {
            solidBottom -= stub
            dashed(solidBottom, "goes on below")
        }
        canvas.rect(x, solidTop, width, solidBottom - solidTop, "a\(context)", to: .bars)
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
        canvas.text(DisplayText("@\(seq)", limit: 24), x: Self.margin, y: baseline, "tm")
        for (position, number) in step.citedBy.enumerated() {
            guard let note = model.notes.first(where: { $0.number == number }) else { continue }
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
        lines += Self.wrap(note.diagnosis.message, width: Self.noteCharactersPerLine, maxLines: 8).map { ($0, "tx") }
        lines += Self.wrap(note.fixLine, width: Self.noteCharactersPerLine, maxLines: 8).map { ($0, "tx") }
        lines += Self.wrap(note.evidenceLine, width: Self.noteCharactersPerLine + 8, maxLines: 2).map { ($0, "tm") }
        // Beside its lane, but kept inside the page when the lanes leave room for it.
        let pageRight = max(right, pageWidth - Self.margin)
        let x = max(min(laneX[note.lane] + 14, pageRight - Self.noteWidth), Self.margin + Self.gutter)
        let top = y + 6, height = lines.count * 16 + 10
        canvas.rect(x, top, Self.noteWidth, height, "nt", radius: 3, to: .foreground)
        canvas.rect(x, top, 4, height, "v\(Self.severityClass(note))", to: .foreground)
        for (index, line) in lines.enumerated() {
            canvas.text(DisplayText(line.0, limit: Self.noteCharactersPerLine + 10), x: x + 12, y: top + 18 + index * 16, line.1, to: .foreground)
        }
        right = max(right, x + Self.noteWidth)
        return top + height + 8
    }

    /// `text`, cleaned, broken into lines of at most `width` characters between words. A word
    /// longer than a line (a generic type name) breaks after its punctuation (`.`, `,`, `<`,
    /// `>`, `(`, `:`), and only where it has none, at the line's end. Text that needs more
    /// than `maxLines` ends its last line with an ellipsis after a whole word.
    ///
    /// Each piece is counted once, never the rest of its word, and the text is read only until
    /// it fills one line more than `maxLines` (at most ``TraceText/limit`` characters of it, as
    /// ``DisplayText/clean(_:)`` cuts): a finding that names an object by a 120,000-character
    /// label costs what a short one does.
    static func wrap(_ text: String, width: Int, maxLines: Int) -> [String] {
        var lines: [String] = []
        var current = "", currentCount = 0
        // Adds a piece of `count` characters to the line, or starts the next line with it;
        // `continues` when it goes on the word before it (no space between).
        func add(_ piece: Substring, count: Int, continues: Bool) {
            let separator = continues ? "" : " "
            if current.isEmpty {
                current = String(piece)
                currentCount = count
            } else if currentCount + separator.count + count <= width {
                current += separator + piece
                currentCount += separator.count + count
            } else {
                lines.append(current)
                current = String(piece)
                currentCount = count
            }
        }
        words: for word in DisplayText.clean(text).split(separator: " ", omittingEmptySubsequences: true) {
            var rest = word[...]
            var continues = false
            while !rest.isEmpty {
                let head = rest.prefix(width)
                var piece = head
                if head.endIndex != rest.endIndex, let punctuation = head.lastIndex(where: { ".,<>(:/".contains($0) }) {
                    piece = head[...punctuation]
                }
                add(piece, count: piece.count, continues: continues)
                rest = rest[piece.endIndex...]
                continues = true
                if lines.count > maxLines { break words }
            }
        }
        if !current.isEmpty, lines.count <= maxLines { lines.append(current) }
        if lines.count > maxLines {
            lines = Array(lines.prefix(maxLines))
            var last = lines[maxLines - 1]
            while last.count > width - 2, let space = last.lastIndex(of: " ") { last = String(last[..<space]) }
            if last.count > width - 2 { last = String(last.prefix(width - 2)) }
            lines[maxLines - 1] = last + " …"
        }
        return lines
    }
}
