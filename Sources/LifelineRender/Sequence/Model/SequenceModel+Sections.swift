extension SequenceModel {
    /// The most rows a model is cut into sections for; a longer one is drawn whole (folding
    /// has already shortened it, and measuring each candidate section would cost more than
    /// the picture is worth).
    static let longestSectionedModel = 20_000

    /// The model cut, top to bottom, into sections that each fit `pageWidth`, the way a long
    /// sequence diagram is cut into pages: each section draws only the lanes its rows use,
    /// under headings of their own, so pipelines that ran one after another stand one above
    /// the other instead of side by side.
    ///
    /// A section is as long as it can be while it fits. It ends, among the rows of its later
    /// half, where the fewest calls are running (where none is, when there is such a place),
    /// and never just above a folded run, a note or a wait, which belong to the rows above them. A call
    /// still running at a cut goes on below: its activation is drawn again, from the top, in
    /// the next section that draws its lane (``carriedActivations``), so concurrent pipelines,
    /// which leave no quiet moment, are cut too, and a section holds no lane on which nothing
    /// happens. Rows stay in their order, each in one section with its sequence number.
    /// Returns `[self]` when the model fits whole, or cannot be cut.
    func sections(fitting pageWidth: Int) -> [SequenceModel] {
        let ranges = sectionRanges(fitting: pageWidth)
        return ranges.count > 1 ? parts(ranges) : [self]
    }

    /// The rows of each of ``sections(fitting:)``, in order; `[steps.indices]` when the model
    /// fits whole or cannot be cut.
    ///
    /// Sections hold the lanes that fit with headings packed no tighter than
    /// ``SequenceSVGLayout/readablePacking``; when so many sections make a page taller than
    /// viewers open (``PageFit/viewableSide``), they hold the lanes that fit with the shortest
    /// headings, which takes fewer sections.
    func sectionRanges(fitting pageWidth: Int) -> [Range<Int>] {
        let readable = sectionRanges(fitting: pageWidth, packing: SequenceSVGLayout.readablePacking)
        guard readable.count > 1, SequenceSVGLayout.height(of: parts(readable), pageWidth: pageWidth) > PageFit.viewableSide else {
            return readable
        }
        return sectionRanges(fitting: pageWidth, packing: SequenceSVGLayout.tightestPacking)
    }

    /// The rows of each section of lanes that fit `pageWidth` at `packing`.
    private func sectionRanges(fitting pageWidth: Int, packing: Int) -> [Range<Int>] {
        guard steps.count <= Self.longestSectionedModel,
              SequenceSVGLayout.lanesWidth(of: self, packing: packing) > pageWidth else { return [steps.indices] }
        let spans = ActivationSpans(steps, laneCount: lanes.count)
        var sections: [Range<Int>] = []
        var start = 0
        // The lanes the section draws so far, and its first row that draws on a lane (marks
        // draw on none, and are no section on their own).
        var lanes = Set<Int>()
        var firstDrawing: Int?
        var row = 0
        while row < steps.count {
            let drawn = Self.lanesDrawn(by: steps[row])
            let joined = lanes.union(drawn)
            // Without a new lane, the labels between the lanes a section has can widen it only
            // up to the packing's cap: it is measured again only when a lane joins.
            if let first = firstDrawing, joined != lanes, SequenceSVGLayout.lanesWidth(
                of: part(start..<row + 1, spans: nil), packing: packing) > pageWidth {
                let cut = Self.cut(in: first + 1...row, of: steps, openCount: spans.openCount)
                sections.append(start..<cut)
                start = cut
                lanes = []
                firstDrawing = nil
                for earlier in cut..<row {
                    let drawn = Self.lanesDrawn(by: steps[earlier])
                    if firstDrawing == nil, !drawn.isEmpty { firstDrawing = earlier }
                    lanes.formUnion(drawn)
                }
                continue
            }
            if firstDrawing == nil, !drawn.isEmpty { firstDrawing = row }
            lanes = joined
            row += 1
        }
        if start < steps.count { sections.append(start..<steps.count) }
        return sections.count > 1 ? sections : [steps.indices]
    }

    /// Where a section ends that no longer fits with the row `candidates.upperBound` in it:
    /// before the row, among the later half of `candidates`, with the fewest calls running
    /// (`openCount`), the latest when several have as few; never before a folded run, a note
    /// or a wait, unless no other row is left.
    private static func cut(in candidates: ClosedRange<Int>, of steps: [SequenceStep], openCount: [Int]) -> Int {
        let allowed = candidates.filter { row in
            switch steps[row].content {
            case .fold, .note, .logEnd, .wait: return false
            default: return true
            }
        }
        guard !allowed.isEmpty else { return candidates.upperBound }
        let half = candidates.lowerBound + (candidates.count - 1) / 2
        let later = allowed.filter { $0 >= half }
        let pool = later.isEmpty ? allowed : later
        let fewest = pool.map { openCount[$0] }.min() ?? 0
        return pool.last { openCount[$0] == fewest } ?? candidates.upperBound
    }

    /// The lanes a row needs in a section: a folded run's ends (its box spans whatever lanes
    /// the section draws between them: a run of pipelines like one drawn above may have its
    /// ends far apart, across lanes of other pipelines); only the callee for a return that
    /// hands back no demand, which ends its activation and draws nothing else.
    private static func lanesDrawn(by step: SequenceStep) -> [Int] {
        if case .callReturn(_, let callee, _, _, nil) = step.content { return [callee] }
        return step.lanes
    }

    /// A model of these parts, as they are.
    private init(lanes: [Lane], contexts: [ExecutionContext], steps: [SequenceStep], notes: [DiagnosisNote]) {
        self.lanes = lanes
        self.contexts = contexts
        self.steps = steps
        self.notes = notes
    }

    /// For each lane, how many of its calls are still running after the last row (carried
    /// ones included), as a text format that opens and closes activations by lane counts them.
    var runningAtEnd: [Int] {
        var running = Array(repeating: 0, count: lanes.count)
        for carried in carriedActivations where running.indices.contains(carried.lane) { running[carried.lane] += 1 }
        for step in steps {
            switch step.content {
            case .call(_, let callee, _, _) where running.indices.contains(callee): running[callee] += 1
            case .callReturn(_, let callee, _, _, _) where running.indices.contains(callee): running[callee] = max(running[callee] - 1, 0)
            default: break
            }
        }
        return running
    }

    /// The calls carried over from the section above (``carriedActivations``), by lane, in
    /// lane order, each as its caption (`@123 subscribe`).
    var carriedCaptions: [(lane: Int, captions: [String])] {
        Dictionary(grouping: carriedActivations, by: \.lane).sorted { $0.key < $1.key }.map { ($0.key, $0.value.map(\.caption)) }
    }

    /// The sections (``sections(fitting:)``) made of the rows of each of `ranges`.
    func parts(_ ranges: [Range<Int>]) -> [SequenceModel] {
        let spans = ActivationSpans(steps, laneCount: lanes.count)
        return ranges.map { part($0, spans: spans) }
    }

    /// The section (``sections(fitting:)``) made of the rows `range`.
    func part(_ range: Range<Int>) -> SequenceModel {
        parts([range])[0]
    }

    /// The rows `range` as a section of their own, with only the lanes they use, numbered
    /// afresh left to right. The calls still running where it begins, on the lanes it draws,
    /// are its ``carriedActivations`` (none without `spans`, for a part only measured). Every
    /// note stays listed (a row may cite a note another section draws).
    private func part(_ range: Range<Int>, spans: ActivationSpans?) -> SequenceModel {
        let kept = Set(steps[range].flatMap(Self.lanesDrawn)).sorted()
        var newIndex: [Int: Int] = [:]
        for (position, lane) in kept.enumerated() { newIndex[lane] = position }
        let lanes = kept.enumerated().map { position, lane in
            Lane(index: position, object: self.lanes[lane].object, members: self.lanes[lane].members, pipeline: self.lanes[lane].pipeline,
                 operatorChain: self.lanes[lane].operatorChain)
        }
        // A return that hands back no demand draws nothing at its caller, whose lane may be left out.
        let renumber = { (lane: Int) in newIndex[lane] ?? 0 }
        let steps = self.steps[range].map { step in
            SequenceStep(content: step.content.movingLanes(renumber), seq: step.seq, time: step.time, thread: step.thread,
                         context: step.context, citedBy: step.citedBy)
        }
        let notes = self.notes.map { DiagnosisNote(number: $0.number, diagnosis: $0.diagnosis, lane: renumber($0.lane)) }
        var part = SequenceModel(lanes: lanes, contexts: contexts, steps: steps, notes: notes)
        guard let spans else { return part }
        part.carriedActivations = spans.openCalls(before: range.lowerBound).compactMap { row in
            let step = self.steps[row]
            guard case .call(_, let callee, let kind, let depth) = step.content, let lane = newIndex[callee] else { return nil }
            return CarriedActivation(lane: lane, depth: depth, context: step.context, thread: step.thread, seq: step.seq, kind: kind)
        }
        part.continuesBelow = range.upperBound < self.steps.count && spans.openCount[range.upperBound] > 0
        return part
    }
}

extension SequenceStep.Content {
    /// The same row with every lane index passed through `renumber`.
    func movingLanes(_ renumber: (Int) -> Int) -> Self {
        switch self {
        case .call(let caller, let callee, let kind, let depth):
            return .call(caller: caller.map(renumber), callee: renumber(callee), kind: kind, depth: depth)
        case .callReturn(let caller, let callee, let kind, let depth, let demand):
            return .callReturn(caller: caller.map(renumber), callee: renumber(callee), kind: kind, depth: depth, returnedDemand: demand)
        case .deallocation(let lane, let evidence):
            return .deallocation(lane: renumber(lane), evidence: evidence)
        case .note(let note):
            return .note(DiagnosisNote(number: note.number, diagnosis: note.diagnosis, lane: renumber(note.lane)))
        case .wait(let wait):
            return .wait(WaitNote(lane: renumber(wait.lane), text: wait.text, endsChain: wait.endsChain))
        case .fold(let run):
            return .fold(RepeatedRun(repeats: run.repeats, noun: run.noun, seqs: run.seqs,
                                     lanes: renumber(run.lanes.lowerBound)...renumber(run.lanes.upperBound)))
        case .mark, .logEnd:
            return self
        }
    }
}
