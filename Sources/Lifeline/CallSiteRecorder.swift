import CLifelineRuntime
import LifelineLog
import Synchronization

/// Where the program made each pipeline and cancelled each subscription.
///
/// At each top-level `subscribe` (one the calling thread makes outside any other subscribe),
/// at each top-level `cancel()` and at each request a subscriber makes while it is handed its
/// subscription, it keeps the calling thread's raw return addresses: glibc's
/// `backtrace()`, about two microseconds, and nothing symbolicated. Identical stacks share one
/// call site number. Subscribes nested in a subscribe (the operators subscribing upstream) get
/// the site of the subscribe around them, so every object of a pipeline names the program's
/// line that made it. A subscribe made while a value is delivered is an operator's inner
/// subscribe (`flatMap`) unless the program's own code runs between the delivery and it (a
/// sink's closure that subscribes); which one is decided at symbolication, and the operator's
/// inherits the site of the subscriber the value was delivered to.
///
/// Each site names the program's frame nearest the call: the first that is not in Combine,
/// Lifeline, the Swift runtime, Foundation, Dispatch or the C library. A stack is symbolicated
/// only as far out as that frame, each distinct address once per process, mostly while the
/// program runs, by a low-priority thread of the recorder's own
/// (``CallSiteSymbolicationThread``); when recording stops, ``resolvedSites()`` symbolicates the
/// stacks that thread has not reached and reads every site from the cache.
final class CallSiteRecorder: Sendable {
    /// How many return addresses a capture keeps: enough to reach the program's frame through
    /// the hook, the recorder and a few operators.
    private static let captureDepth = 40

    private let generation: UInt64
    private let capturing: Bool
    private let state = Mutex(State())
    private let symbolication = CallSiteSymbolicationThread()

    /// One captured stack. `fallback` is the site of the subscriber a value was being
    /// delivered to when the capture was made (0 outside deliveries). A closure's site has no
    /// stack: its one address is the closure's function.
    private struct Capture: Hashable {
        let returnAddresses: [UInt]
        let fallback: UInt64
        var isClosure = false
    }

    private struct State {
        var numbers: [Capture: UInt64] = [:]
        var captures: [Capture] = []
        var cancelSites = Set<UInt64>()
        var objectSites: [TraceObjectID: UInt64] = [:]
        /// The site of each closure function, by address: asked for at every reference a
        /// snapshot finds held through a closure.
        var closureSites: [UInt: UInt64] = [:]
        /// How many of `captures` the symbolication thread has taken, and how many of those it
        /// has symbolicated (the first ones).
        var takenBySymbolication = 0
        var symbolicated = 0
    }

    /// Creates the call sites of the recording `generation` (which keys the per-thread scopes).
    /// When `capturing` is `false`, every method does nothing and no site is recorded.
    init(generation: UInt64, capturing: Bool) {
        self.generation = generation
        self.capturing = capturing
        if capturing { symbolication.start(for: self) }
    }

    /// At the beginning of a subscribe call: the call site of the pipeline it makes, captured
    /// or inherited; `nil` when none could be captured.
    func subscribeBegins() -> UInt64? {
        guard capturing else { return nil }
        var value: UInt64 = 0
        let site: UInt64
        switch lifeline_scope_top(generation, &value) {
        case LIFELINE_SCOPE_SUBSCRIBE: site = value
        case LIFELINE_SCOPE_HANDSHAKE, LIFELINE_SCOPE_REQUEST: site = value != 0 ? value : capture(fallback: 0)
        case LIFELINE_SCOPE_DELIVERY: site = capture(fallback: state.withLock { $0.objectSites[TraceObjectID(value)] ?? 0 })
        default: site = capture(fallback: 0)
        }
        lifeline_scope_push(generation, LIFELINE_SCOPE_SUBSCRIBE, site)
        return site == 0 ? nil : site
    }

    /// At the end of a subscribe call.
    func subscribeEnds() {
        guard capturing else { return }
        lifeline_scope_pop(generation)
    }

    /// The site of the subscribe the calling thread is in, for the objects it declares (also
    /// inside the handshakes and requests that subscribe makes).
    var currentSubscribeSite: UInt64? {
        guard capturing else { return nil }
        var value: UInt64 = 0
        switch lifeline_scope_top(generation, &value) {
        case LIFELINE_SCOPE_SUBSCRIBE, LIFELINE_SCOPE_HANDSHAKE, LIFELINE_SCOPE_REQUEST: return value == 0 ? nil : value
        default: return nil
        }
    }

    /// At the beginning of a value or completion delivered to `subscriber`.
    func deliveryBegins(to subscriber: TraceObjectID) {
        guard capturing else { return }
        lifeline_scope_push(generation, LIFELINE_SCOPE_DELIVERY, subscriber.rawValue)
    }

    /// At the end of a delivery: the subscriber its beginning was recorded for, when the
    /// calling thread's innermost scope is that delivery (`nil` when call sites are not
    /// captured, the beginning came before recording started, or scopes nest too deep), so
    /// the end event need not identify the subscriber again.
    ///
    /// Not inlined: the variable it hands the C library by address would have every caller
    /// guard its stack (a value delivery in automatic mode, when call sites are off).
    @discardableResult
    @inline(never)
    func deliveryEnds() -> TraceObjectID? {
        guard capturing else { return nil }
        var value: UInt64 = 0
        return lifeline_scope_pop_returning(generation, &value) == LIFELINE_SCOPE_DELIVERY ? TraceObjectID(value) : nil
    }

    /// At the beginning of a cancel call: its call site, or `nil` for a cancel made inside
    /// another cancel (an operator passing it upstream).
    func cancelBegins() -> UInt64? {
        guard capturing else { return nil }
        var value: UInt64 = 0
        let nested = lifeline_scope_top(generation, &value) == LIFELINE_SCOPE_CANCEL
        lifeline_scope_push(generation, LIFELINE_SCOPE_CANCEL, 0)
        guard !nested else { return nil }
        let site = capture(fallback: 0)
        guard site != 0 else { return nil }
        state.withLock { _ = $0.cancelSites.insert(site) }
        return site
    }

    /// At the end of a cancel call.
    func cancelEnds() {
        guard capturing else { return }
        lifeline_scope_pop(generation)
    }

    /// At the beginning of a subscription being handed to a subscriber.
    func handshakeBegins() {
        guard capturing else { return }
        lifeline_scope_push(generation, LIFELINE_SCOPE_HANDSHAKE, currentSubscribeSite ?? 0)
    }

    /// At the end of a subscription being handed to a subscriber.
    func handshakeEnds() {
        guard capturing else { return }
        lifeline_scope_pop(generation)
    }

    /// At the beginning of a request: its call site when the subscriber asks while it is being
    /// handed its subscription (where a hand-written subscriber's `receive(subscription:)` is),
    /// `nil` for other requests (an operator passing demand upstream, later requests).
    func requestBegins() -> UInt64? {
        guard capturing else { return nil }
        var value: UInt64 = 0
        let inHandshake = lifeline_scope_top(generation, &value) == LIFELINE_SCOPE_HANDSHAKE
        lifeline_scope_push(generation, LIFELINE_SCOPE_REQUEST, currentSubscribeSite ?? 0)
        guard inHandshake else { return nil }
        let site = capture(fallback: 0)
        return site == 0 ? nil : site
    }

    /// At the end of a request.
    func requestEnds() {
        guard capturing else { return }
        lifeline_scope_pop(generation)
    }

    /// Remembers the site of a declared object, for subscribes made while it receives values.
    func note(_ site: UInt64, of object: TraceObjectID) {
        state.withLock { $0.objectSites[object] = site }
    }

    /// Forgets the site of an object that died: it receives no more values, and a recording of
    /// a million short pipelines keeps the sites of those alive, not of every one it saw.
    func forget(_ object: TraceObjectID) {
        guard capturing else { return }
        state.withLock { _ = $0.objectSites.removeValue(forKey: object) }
    }

    /// How many objects' sites are remembered: one per live object declared in a subscribe.
    var rememberedObjectSites: Int {
        state.withLock { $0.objectSites.count }
    }

    /// The site of the closure whose function is at `function` (a snapshot found a reference
    /// held through it), numbered with the other sites and symbolicated with them: where the
    /// closure is written. `nil` when call sites are not recorded.
    func closureSite(function: UInt) -> UInt64? {
        guard capturing, function != 0 else { return nil }
        return state.withLock { state in
            if let site = state.closureSites[function] { return site }
            state.captures.append(Capture(returnAddresses: [function], fallback: 0, isClosure: true))
            let site = UInt64(state.captures.count)
            state.closureSites[function] = site
            return site
        }
    }

    private func capture(fallback: UInt64) -> UInt64 {
        let addresses = withUnsafeTemporaryAllocation(of: UInt.self, capacity: Self.captureDepth) { buffer in
            let count = lifeline_capture_return_addresses(buffer.baseAddress!, Int32(Self.captureDepth))
            // The first address is this function's own call into the C library.
            return Array(buffer.prefix(Int(max(count, 0))).dropFirst())
        }
        guard !addresses.isEmpty else { return fallback }
        let capture = Capture(returnAddresses: addresses, fallback: fallback)
        return state.withLock { state in
            if let number = state.numbers[capture] { return number }
            state.captures.append(capture)
            let number = UInt64(state.captures.count)
            state.numbers[capture] = number
            return number
        }
    }

    /// Symbolicates the stacks captured since the last call, on the symbolication thread: takes
    /// them in one short lock, symbolicates them holding none, and counts them symbolicated.
    func symbolicateNewStacks() {
        let (stacks, end) = state.withLock { state in
            let new = state.captures[state.takenBySymbolication...]
            state.takenBySymbolication = state.captures.count
            return (new.filter { !$0.isClosure }.map(\.returnAddresses), state.captures.count)
        }
        if !stacks.isEmpty { Self.symbolicate(stacks) }
        state.withLock { $0.symbolicated = max($0.symbolicated, end) }
    }

    /// How many of the sites captured so far are symbolicated already (numbered 1 to this), so
    /// that stopping has only the sites after them to symbolicate.
    var symbolicatedSites: Int {
        state.withLock { $0.symbolicated }
    }

    /// How far out from the call a stack is symbolicated in each round, in return addresses:
    /// most stacks reach the program's frame in the first round, and the frames beyond it are
    /// never read.
    private static let readingRounds = [8, 16, captureDepth]

    /// Symbolicates into ``CallStackSymbolicator``'s cache the frames that reading each stack
    /// needs (``readFrames(of:)``), in one pass over all the stacks for each round, and gives
    /// the calls the stacks are named by that DWARF gives no line their statement's line, in
    /// one search for all of them.
    static func symbolicate(_ stacks: [[UInt]]) {
        var pending = stacks
        var start = 0
        for end in readingRounds where !pending.isEmpty {
            let addresses = Set(pending.flatMap { $0[min(start, $0.count)..<min(end, $0.count)] })
            _ = CallStackSymbolicator.frames(returnAddresses: Array(addresses))
            pending = pending.filter { stack in
                stack.count > end && !CallStackReading(frames: CallStackSymbolicator.frames(returnAddresses: Array(stack.prefix(end))).flatMap { $0 }).isFinished
            }
            start = end
        }
        CallStackSymbolicator.placeCompilerMadeCalls(at: Array(Set(stacks.compactMap(unplacedCall))))
    }

    /// The frames of the return addresses of `stack` that reading it needs: those of the rounds
    /// up to the one in which its reading finishes, or all of them. Symbolicates what the cache
    /// lacks.
    private static func readFrames(of stack: [UInt]) -> [[CallStackSymbolicator.Frame]] {
        var frames: [[CallStackSymbolicator.Frame]] = []
        for end in readingRounds where frames.count < stack.count {
            frames += CallStackSymbolicator.frames(returnAddresses: Array(stack[frames.count..<min(end, stack.count)]))
            if CallStackReading(frames: frames.flatMap { $0 }).isFinished { break }
        }
        return frames
    }

    /// The return address of the program's frame nearest the call `stack` was taken at, when
    /// that frame has a file and no line (code the compiler made for a statement) and is the
    /// innermost frame at its address.
    private static func unplacedCall(_ stack: [UInt]) -> UInt? {
        let frames = readFrames(of: stack)
        let reading = CallStackReading(frames: frames.flatMap { $0 })
        guard let index = reading.locationIndex, let location = reading.location, location.file != nil, location.line == nil
        else { return nil }
        var start = 0
        for (address, framesThere) in zip(stack, frames) {
            if start == index { return address }
            start += framesThere.count
            if start > index { return nil }
        }
        return nil
    }

    /// Every site captured so far, symbolicated: the program's frame nearest each call, and
    /// for a cancel's site, who cancelled.
    func resolvedSites() -> [TraceCallSite] {
        symbolication.stop()
        let (captures, cancelSites, symbolicated) = state.withLock { ($0.captures, $0.cancelSites, $0.symbolicated) }
        // The stacks the symbolication thread has not finished; the cache serves the others.
        Self.symbolicate(captures[symbolicated...].filter { !$0.isClosure }.map(\.returnAddresses))
        let closureIndices = captures.indices.filter { captures[$0].isClosure }
        let closures = Dictionary(uniqueKeysWithValues: zip(
            closureIndices, CallStackSymbolicator.closures(at: closureIndices.map { captures[$0].returnAddresses[0] })
        ))
        var sites: [TraceCallSite] = []
        for (index, capture) in captures.enumerated() {
            let number = UInt64(index + 1)
            if let closure = closures[index] {
                sites.append(TraceCallSite(id: number, location: closure.flatMap(CallStackReading.location(ofClosure:))))
                continue
            }
            let reading = CallStackReading(frames: Self.readFrames(of: capture.returnAddresses).flatMap { $0 })
            let location = reading.location ?? (reading.stoppedAtDelivery && capture.fallback != 0
                ? sites[Int(capture.fallback) - 1].location : nil)
            sites.append(TraceCallSite(
                id: number, location: location, cancelCause: cancelSites.contains(number) ? reading.cancelCause : nil
            ))
        }
        return sites
    }
}
