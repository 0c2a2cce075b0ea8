import LifelineLog

/// What a symbolicated call stack says about the call it was captured at: the program's frame
/// nearest the call, and whether an `AnyCancellable` being deinitialized made the call.
///
/// Frames are read from the call outwards. Frames of Combine, OpenCombine, Lifeline, the Swift
/// runtime and standard library, Foundation, Dispatch and the C library are passed over; the
/// first other frame is the program's. A frame that delivers a value to a subscriber (Combine's
/// subscriber tap, a `.lifeline` hop's proxy) ends the search: what is above it is the code
/// that sent the value, not the code that made the call.
struct CallStackReading {
    /// The program's frame nearest the call.
    private(set) var location: TraceSourceLocation?
    /// Where that frame is among the frames read, counted from 0.
    private(set) var locationIndex: Int?
    /// Whether the search ended at a value delivery before reaching the program.
    private(set) var stoppedAtDelivery = false
    /// Whether an `AnyCancellable`'s deinit was passed on the way.
    private(set) var passedTokenRelease = false

    /// Whether the reading ended at a frame it was given (the program's, or a delivery's):
    /// frames further out would change nothing it says.
    var isFinished: Bool { location != nil || stoppedAtDelivery }

    /// Modules whose frames are never the program's.
    static let libraryModules: Set<String> = [
        "Lifeline", "LifelineLog", "LifelineHeap", "LifelineTesting",
        "Combine", "OpenCombine", "OpenCombineShim", "OpenCombineDispatch", "OpenCombineFoundation",
        "Swift", "_Concurrency", "_StringProcessing", "Synchronization", "Runtime",
        "Foundation", "FoundationEssentials", "FoundationInternationalization", "Dispatch", "XCTest", "Testing",
    ]

    init(frames: [CallStackSymbolicator.Frame]) {
        for (index, frame) in frames.enumerated() {
            if Self.isTokenRelease(frame) { passedTokenRelease = true }
            if Self.isDelivery(frame) {
                stoppedAtDelivery = true
                return
            }
            if Self.isProgram(frame) {
                location = TraceSourceLocation(frame)
                locationIndex = index
                return
            }
        }
    }

    /// Where a closure is written, from the frame of its function: `nil` for a closure of
    /// Combine, Lifeline or a system library (an operator's own), or one without a symbol.
    static func location(ofClosure frame: CallStackSymbolicator.Frame) -> TraceSourceLocation? {
        isProgram(frame) ? TraceSourceLocation(frame) : nil
    }

    /// Who cancelled, when the stack was captured at a cancel.
    var cancelCause: TraceCallSite.CancelCause {
        if passedTokenRelease { return .released }
        return location == nil ? .unknown : .called
    }

    /// The module a Swift symbol belongs to, read from its mangled name: the first identifier,
    /// or the module an extension was declared in. `nil` for other symbols.
    static func module(ofMangledName name: String) -> String? {
        var text = Substring(name)
        if text.hasPrefix("_") { text = text.dropFirst() }
        guard text.hasPrefix("$s") || text.hasPrefix("$S") else { return nil }
        text = text.dropFirst(2)
        guard let first = identifier(at: &text) else { return nil }
        // `<type module><type…>E` marks an extension declared in another module:
        // `$s11OpenCombine9PublisherP8LifelineE8lifeline…`. Read on to its module.
        var rest = text
        var extensionModule: String?
        while let next = identifier(at: &rest) {
            if rest.first == "P" || rest.first == "C" || rest.first == "V" || rest.first == "O" { rest = rest.dropFirst() }
            if rest.first == "E" { extensionModule = next; break }
            if !(rest.first?.isNumber ?? false) { break }
        }
        return extensionModule ?? first
    }

    private static func identifier(at text: inout Substring) -> String? {
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let length = Int(digits), length > 0 else { return nil }
        let body = text.dropFirst(digits.count)
        guard body.count >= length else { return nil }
        text = body.dropFirst(length)
        return String(body.prefix(length))
    }

    /// Mangled-name suffixes of compiler-made forwarders: a protocol witness, a reabstraction
    /// thunk, a partial-apply forwarder. The code they forward to is a frame of its own.
    private static let forwarderSuffixes = ["TW", "TR", "Tr", "TA"]

    private static func isProgram(_ frame: CallStackSymbolicator.Frame) -> Bool {
        if frame.isThunk { return false }
        guard let mangled = frame.mangledName else { return frame.file != nil }
        if forwarderSuffixes.contains(where: mangled.hasSuffix) { return false }
        if let module = module(ofMangledName: mangled) { return !libraryModules.contains(module) }
        if mangled.hasPrefix("$s") || mangled.hasPrefix("_$s") { return false }
        // A C symbol: the program's own only with debug information pointing into its sources,
        // which the C library, Dispatch and the recorder's C helpers don't have here.
        return frame.file != nil && !mangled.hasPrefix("lifeline_")
    }

    private static func isDelivery(_ frame: CallStackSymbolicator.Frame) -> Bool {
        guard let name = frame.name else { return false }
        return (name.contains("SubscriberTap.receive(") || name.contains("LifelineSubscriber.receive("))
            && !name.contains("receive(subscription:")
    }

    private static func isTokenRelease(_ frame: CallStackSymbolicator.Frame) -> Bool {
        guard let name = frame.name else { return false }
        return name.contains("AnyCancellable.deinit") || name.contains("AnyCancellable.__deallocating_deinit")
    }
}

extension TraceSourceLocation {
    /// The location of a symbolicated frame, its function named as the program's source names
    /// it: without the `specialized ` or `merged ` an optimized build's copy of it adds.
    init(_ frame: CallStackSymbolicator.Frame) {
        self.init(file: frame.file, line: frame.line, function: frame.name.map(Self.sourceName))
    }

    private static func sourceName(_ demangled: String) -> String {
        var name = Substring(demangled)
        while let prefix = ["specialized ", "merged "].first(where: name.hasPrefix) { name = name.dropFirst(prefix.count) }
        return String(name)
    }
}
