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
    /// A cut falls only where no call is open on any lane, so no activation crosses it. Rows
    /// stay in their order, and each keeps its sequence number. A section is as long as it
    /// can be while it fits; a stretch of rows between two possible cuts that does not fit
    /// alone is one section, drawn as narrow as its lanes allow. Returns `[self]` when the
    /// model fits whole, or cannot be cut.
    func sections(fitting pageWidth: Int) -> [SequenceModel] {
        let ranges = sectionRanges(fitting: pageWidth)
        return ranges.count > 1 ? ranges.map(part) : [self]
    }

    /// The rows of each of ``sections(fitting:)``, in order; `[steps.indices]` when the model
    /// fits whole or cannot be cut.
    func sectionRanges(fitting pageWidth: Int) -> [Range<Int>] {
        guard steps.count <= Self.longestSectionedModel,
              SequenceSVGLayout.lanesWidth(of: self, packing: SequenceSVGLayout.tightestPacking) > pageWidth else { return [steps.indices] }
        var sections: [Range<Int>] = []
        var start = 0, end = 0
        var lanes = Set<Int>()
        for stretch in stretchesBetweenCuts() {
            let stretchLanes = Set(steps[stretch].flatMap(Self.lanesDrawn))
            let joined = lanes.union(stretchLanes)
            // Without a new lane, the labels between the lanes a section has can widen it only
            // up to the packing's cap: it is measured again only when a lane joins. Rows that
            // draw on no lane (marks) are no section on their own: they join the next one.
            if end > start, !lanes.isEmpty, joined != lanes,
               SequenceSVGLayout.lanesWidth(of: part(start..<stretch.upperBound), packing: SequenceSVGLayout.tightestPacking) > pageWidth {
                sections.append(start..<end)
                start = stretch.lowerBound
                lanes = stretchLanes
            } else {
                lanes = joined
            }
            end = stretch.upperBound
        }
        if end > start { sections.append(start..<end) }
        return sections.count > 1 ? sections : [steps.indices]
    }

    /// Every lane a row is drawn across: a folded run spans the lanes between its ends.
    private static func lanesDrawn(by step: SequenceStep) -> [Int] {
        if case .fold(let run) = step.content { return Array(run.lanes) }
        return step.lanes
    }

    /// The rows between the places a section may end: after a row that leaves no call open
    /// on any lane.
    private func stretchesBetweenCuts() -> [Range<Int>] {
        var stretches: [Range<Int>] = []
        var open = 0
        var start = 0
        for (index, step) in steps.enumerated() {
            switch step.content {
            case .call: open += 1
            case .callReturn: open = max(open - 1, 0)
            default: break
            }
            if open == 0 {
                stretches.append(start..<index + 1)
                start = index + 1
            }
        }
        if start < steps.count { stretches.append(start..<steps.count) }
        return stretches
    }

    /// A model of these parts, as they are.
    private init(lanes: [Lane], contexts: [ExecutionContext], steps: [SequenceStep], notes: [DiagnosisNote]) {
        self.lanes = lanes
        self.contexts = contexts
        self.steps = steps
        self.notes = notes
    }

    /// The rows `range` with only the lanes they use, numbered afresh left to right. Every
    /// note stays listed (a row may cite a note another section draws).
    func part(_ range: Range<Int>) -> SequenceModel {
        let kept = Set(steps[range].flatMap(Self.lanesDrawn)).sorted()
        var newIndex: [Int: Int] = [:]
        for (position, lane) in kept.enumerated() { newIndex[lane] = position }
        let lanes = kept.enumerated().map { position, lane in
            Lane(index: position, object: self.lanes[lane].object, members: self.lanes[lane].members, pipeline: self.lanes[lane].pipeline,
                 operatorChain: self.lanes[lane].operatorChain)
        }
        let renumber = { (lane: Int) in newIndex[lane] ?? 0 }
        let steps = self.steps[range].map { step in
            SequenceStep(content: step.content.movingLanes(renumber), seq: step.seq, time: step.time, thread: step.thread,
                         context: step.context, citedBy: step.citedBy)
        }
        let notes = self.notes.map { DiagnosisNote(number: $0.number, diagnosis: $0.diagnosis, lane: renumber($0.lane)) }
        return SequenceModel(lanes: lanes, contexts: contexts, steps: steps, notes: notes)
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
        case .fold(let run):
            return .fold(RepeatedRun(repeats: run.repeats, noun: run.noun, seqs: run.seqs,
                                     lanes: renumber(run.lanes.lowerBound)...renumber(run.lanes.upperBound)))
        case .mark:
            return self
        }
    }
}
