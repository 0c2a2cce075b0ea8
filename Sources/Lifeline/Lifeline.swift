import Foundation
import LifelineLog
import Synchronization

/// Records what happens inside Combine pipelines.
///
/// Turn recording on for the whole process with one call, and off with another:
///
/// ```swift
/// try Lifeline.start(writingTo: "trace.jsonl")
/// runTheApp()
/// Lifeline.stop()
/// ```
///
/// Every hop of every pipeline is written to the log as it happens, so a crash leaves every
/// earlier event readable. Or record one piece of code and get the trace back:
///
/// ```swift
/// let trace = try Lifeline.record {
///     subject.sink { print($0) }.store(in: &cancellables)
/// }
/// ```
///
/// Recording never changes what the traced program does or when its objects die: Lifeline
/// holds the program's objects only weakly.
public enum Lifeline {
    private struct Recording {
        let session: RecordingSession
        let bridge: IntrospectionBridge?
    }

    private static let active = Mutex<Recording?>(nil)
    private static let scopedLogs = Atomic<Int>(0)
    private static let scopedRecording = Mutex<Void>(())

    /// Whether a recording is running.
    public static var isRecording: Bool {
        active.withLock { $0 != nil }
    }

    /// Starts recording to the log file at `path`, replacing it.
    ///
    /// - Parameters:
    ///   - path: The log file to write.
    ///   - options: Whether to record every pipeline or only `.lifeline(_:)` hops, and
    ///     whether to describe values.
    /// - Throws: ``LifelineError/invalidOptions(_:)`` when `options` can't be honoured (a value
    ///   description limit below 1, a log capacity below
    ///   ``RecordingOptions/minimumLogCapacity``), ``LifelineError/alreadyRecording`` when a
    ///   recording is running, or ``LifelineError/cannotWriteLog(_:)`` when the file can't be
    ///   written (its file system has no room for it, for example); a file it made at `path`
    ///   is then removed.
    public static func start(writingTo path: String, options: RecordingOptions = RecordingOptions()) throws(LifelineError) {
        try options.validate()
        try active.withLock { active throws(LifelineError) in
            guard active == nil else { throw .alreadyRecording }
            let session: RecordingSession
            do throws(TraceWriteError) {
                session = try RecordingSession(path: path, options: options)
            } catch {
                throw .cannotWriteLog(error.description)
            }
            pendingRoots.moveAll(to: session.roots)
            let bridge = options.automatic ? IntrospectionBridge(session: session) : nil
            bridge?.enable()
            active = Recording(session: session, bridge: bridge)
            session.watchForHangs()
        }
    }

    /// Watches the running recording for hangs: when no event has happened for `period` while
    /// pipelines are open, writes a hang record to the log, and a snapshot of who holds whom.
    ///
    /// A program that hangs never stops its recording; `lifeline diagnose` of the log it leaves
    /// (kill it: the log survives `kill -9`) says when the program was seen hanging and what each
    /// open pipeline waits on, with the hang record as evidence:
    ///
    /// ```swift
    /// try Lifeline.start(writingTo: "trace.lifeline")
    /// Lifeline.watchdog(after: .seconds(5))
    /// ```
    ///
    /// `RecordingOptions(watchdog:)` and `LIFELINE_OPTIONS=watchdog=5s` set it when recording
    /// starts. The watchdog costs recording nothing: a thread of its own wakes a few times a
    /// period and reads the log's event counter. Only when no event happened for the whole
    /// period does it read the log written so far, once per quiet stretch, to see whether a
    /// pipeline is open: a program idle with none open gets no record. A program whose events
    /// resume after a hang record can get another at its next hang.
    ///
    /// While any recording runs, `SIGQUIT` (`kill -QUIT`, `Ctrl-\` in a terminal) writes a hang
    /// record and a snapshot on demand, whether or not pipelines are open, and the program
    /// runs on, unless the program installed its own `SIGQUIT` handler, which is left alone;
    /// stopping the recording puts back what `SIGQUIT` did before (end the process, or nothing
    /// when it was ignored).
    ///
    /// - Parameter period: How long no event may happen while pipelines are open (10 ms at
    ///   least: a shorter period counts as 10 ms); `nil` turns the watchdog off. It does
    ///   nothing when no recording runs.
    public static func watchdog(after period: Duration?) {
        current?.setWatchdog(period)
    }

    /// Writes a hang record (and a snapshot) to the running recording's log now, for the
    /// reason `cause`, whether or not pipelines are open; `false` when no recording runs.
    package static func recordHang(_ cause: TraceHang.Cause) -> Bool {
        current?.recordHang(cause) ?? false
    }

    /// Stops recording: records the deaths a final check finds and closes the log.
    ///
    /// - Returns: The path of the finished log, or `nil` when nothing was recording.
    @discardableResult
    public static func stop() -> String? {
        guard let recording = active.withLock({ active in defer { active = nil }; return active }) else { return nil }
        recording.bridge?.disable()
        recording.session.finish()
        return recording.session.path
    }

    /// Lets a later automatic recording see the pipelines subscribed from now on, even those
    /// subscribed before it starts.
    ///
    /// Automatic mode records through Combine's introspection hook, and Combine only puts
    /// the hook's taps on a pipeline while the hook is installed, at subscribe time: a
    /// pipeline subscribed before `start` is invisible to the recording. Call `prepare()`
    /// early (at launch, or before making the objects you want to watch) to install the
    /// hook now:
    ///
    /// ```swift
    /// Lifeline.prepare()
    /// let model = SearchViewModel()     // subscribes its pipelines
    /// try Lifeline.start(writingTo: "trace.jsonl")
    /// model.query.send("swift")         // recorded; the model's sink is declared "joined"
    /// Lifeline.stop()
    /// ```
    ///
    /// While prepared and not recording, every Combine call costs the hook's own overhead
    /// (about 100 ns) and nothing is recorded. Combine then hands subscribers its wrappers,
    /// as in any recording, which code that casts a subscription to its concrete type
    /// notices. Calling it again does nothing; ``endPreparation()`` removes the hook.
    public static func prepare() {
        preparedHook.enable()
    }

    /// Removes the hook ``prepare()`` installed. A running automatic recording keeps its own.
    public static func endPreparation() {
        preparedHook.disable()
    }

    private static let preparedHook = PreparedHook()

    /// Records everything `body` does and returns the trace.
    ///
    /// Scoped recordings run one at a time: a second one, on another thread, waits for the
    /// first to end. (Recording is process-wide, so two at once could not be told apart.)
    /// Each sees only its own objects: the roots tracked during one (``track(_:name:)``) end
    /// with it, so an object one test leaks on purpose never appears in the next test's log.
    ///
    /// ```swift
    /// let trace = try Lifeline.record(keepingLogAt: "failing-test.jsonl") {
    ///     model.load()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - options: How to record.
    ///   - path: Where to keep the log, to read it with `lifeline` later; `nil` (the default)
    ///     writes it to a temporary file that is removed once it has been read.
    ///   - body: The code to record. It should return only once the work it starts is done.
    /// - Returns: The recorded trace.
    /// - Throws: What `body` throws, a ``LifelineError``, or a `TraceReadError` if the log
    ///   can't be read back.
    public static func record(
        options: RecordingOptions = RecordingOptions(), keepingLogAt path: String? = nil, _ body: () throws -> Void
    ) throws -> Trace {
        let temporary = path == nil
        let path = path ?? FileManager.default.temporaryDirectory.appendingPathComponent(
            "lifeline-\(ProcessInfo.processInfo.processIdentifier)-\(scopedLogs.add(1, ordering: .relaxed).newValue).jsonl"
        ).path
        return try scopedRecording.withLock { _ in
            try start(writingTo: path, options: options)
            defer { if temporary { try? FileManager.default.removeItem(atPath: path) } }
            do {
                try body()
            } catch {
                stop()
                throw error
            }
            stop()
            return try TraceReader.read(contentsOf: path)
        }
    }

    /// The environment variable ``recordingIfRequested(_:)`` reads: the path of the log to
    /// write.
    public static let traceEnvironmentVariable = "LIFELINE_TRACE"

    /// The environment variable ``recordingIfRequested(_:)`` reads the recording options from,
    /// as `RecordingOptions(parsing:)` reads them: for example `snapshots,values=80`.
    public static let optionsEnvironmentVariable = "LIFELINE_OPTIONS"

    /// Runs `body`, recording it to the log named by the `LIFELINE_TRACE` environment
    /// variable when that is set, so that a program can be traced without changing it again:
    ///
    /// ```swift
    /// Lifeline.recordingIfRequested { runTheApp() }
    /// ```
    ///
    /// ```sh
    /// LIFELINE_TRACE=trace.jsonl swift run MyApp
    /// LIFELINE_TRACE=trace.jsonl LIFELINE_OPTIONS=snapshots,values=80 swift run MyApp
    /// ```
    ///
    /// `LIFELINE_OPTIONS` holds the options, a comma-separated list of `automatic`,
    /// `operator-only`, `snapshots[=none|stop|every-call]`, `values=N`, `capacity=N[K|M|G]`,
    /// `format=binary|jsonl` and `watchdog=N(ms|s|m)` (see `RecordingOptions(parsing:)`); unset
    /// or empty, the defaults.
    ///
    /// When the options can't be read or the log can't be written, the reason goes to
    /// standard error and `body` runs untraced: a tracer never stops the program it traces,
    /// and a recording made with options the user did not ask for (automatic mode instead of
    /// a mistyped `operator-only`, say) would mislead.
    public static func recordingIfRequested(_ body: () throws -> Void) rethrows {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment[traceEnvironmentVariable], !path.isEmpty else {
            return try body()
        }
        do {
            let options = try RecordingOptions(parsing: environment[optionsEnvironmentVariable] ?? "")
            try start(writingTo: path, options: options)
        } catch {
            let reason = if case .invalidOptions = error { "\(optionsEnvironmentVariable): \(error)" } else { "\(error)" }
            FileHandle.standardError.write(Data("lifeline: not recording: \(reason)\n".utf8))
            return try body()
        }
        defer { stop() }
        try body()
    }

    /// Records a named mark, such as "view disappeared", to find a moment in the trace.
    public static func mark(_ label: String) {
        current?.record(.instant, .mark(label: label))
    }

    /// Registers `object` as a root of the reference graph, under `name`.
    ///
    /// Snapshots start their inspection from the roots and from every object the recorder
    /// has seen, and show each root with its name, so that a retain path reads
    /// `ViewModel.cancellables → Set<AnyCancellable> → …`:
    ///
    /// ```swift
    /// Lifeline.track(viewModel, name: "ViewModel")
    /// viewModel.bind()
    /// Lifeline.snapshot("after bind")
    /// ```
    ///
    /// Lifeline holds the object weakly: tracking never keeps it alive. A root belongs to the
    /// recording it was tracked in and ends with it; one tracked while no recording runs
    /// belongs to the next recording that starts. Tracking an object again renames it;
    /// ``untrack(_:)`` forgets it.
    ///
    /// - Parameters:
    ///   - object: The object, typically a view model or controller.
    ///   - name: The name snapshots show for it.
    public static func track(_ object: AnyObject, name: String) {
        let session = active.withLock { active -> RecordingSession? in
            guard let session = active?.session else {
                pendingRoots.track(object, name: name)
                return nil
            }
            session.roots.track(object, name: name)
            return session
        }
        _ = session?.identify(object, role: .object)
    }

    /// Stops treating `object` as a root: later snapshots neither start from it nor name it
    /// (they still show it where a reference reaches it). Does nothing for an object that
    /// was not tracked.
    public static func untrack(_ object: AnyObject) {
        let session = active.withLock { active -> RecordingSession? in
            pendingRoots.untrack(object)
            return active?.session
        }
        session?.untrack(object)
    }

    /// Records a snapshot of the reference graph: who holds whom, through which field or
    /// closure, strongly, weakly or unowned.
    ///
    /// The snapshot inspects every live object the recording has seen and every tracked root
    /// (``track(_:name:)``), reading memory in a way that cannot fault, and writes the graph
    /// to the log under `label`. It does nothing when no recording is running.
    ///
    /// - Parameter label: The name to find the snapshot by (`lifeline graph --at LABEL`).
    public static func snapshot(_ label: String) {
        current?.takeSnapshot(label: label, reason: .requested)
    }

    /// The roots registered with ``track(_:name:)`` while no recording ran, for the next one.
    static let pendingRoots = TrackedRoots()

    /// The running session, for `.lifeline(_:)` hops subscribed while it runs.
    static var current: RecordingSession? {
        active.withLock { $0?.session }
    }
}

/// Why recording could not start.
public enum LifelineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `start` was called while a recording was running.
    case alreadyRecording
    /// The log file could not be created.
    case cannotWriteLog(String)
    /// The recording options can't be honoured; the text says which and why.
    case invalidOptions(String)

    public var description: String {
        switch self {
        case .alreadyRecording: return "a Lifeline recording is already running; stop it first"
        case .cannotWriteLog(let reason): return reason
        case .invalidOptions(let reason): return "invalid recording options: \(reason)"
        }
    }
}
