extension TraceSnapshot {
    /// One object in a snapshot. Its type name is in its declaration, ``Trace/objects``.
    public struct Node: Hashable, Sendable {
        /// The object, declared in ``Trace/objects``.
        public let id: TraceObjectID
        /// What the object is, for grouping and drawing.
        public let kind: Kind
        /// The name the user registered a root under (`Lifeline.track(viewModel, name:
        /// "ViewModel")`); for a global variable, its declaration (`static Service.shared`,
        /// `global cache`); otherwise `nil`.
        public let name: String?
        /// The runtime's reference counts when the snapshot was taken, or `nil` when the
        /// object was deallocated or its counts could not be read.
        public let retainCounts: RetainCounts?
        /// Whether the object was alive when the snapshot was taken. A deallocated node is an
        /// object the recorder knew that had died by then; it has no edges of its own.
        public let alive: Bool
        /// Whether the object belongs to a system library (Foundation, Dispatch, the Swift
        /// runtime) whose references inspection does not follow: it is drawn, but it has no
        /// edges of its own, and what it holds is not in the graph.
        public let opaque: Bool

        /// Creates a node.
        public init(
            id: TraceObjectID, kind: Kind, name: String? = nil, retainCounts: RetainCounts?, alive: Bool, opaque: Bool = false
        ) {
            self.id = id
            self.kind = kind
            self.name = name
            self.retainCounts = retainCounts
            self.alive = alive
            self.opaque = opaque
        }

        /// What kind of object a node is.
        public enum Kind: String, Hashable, Sendable, CaseIterable {
            /// A class publisher that is not a subject.
            case publisher
            /// A subscription.
            case subscription
            /// A subscriber (`Sink`, `Assign`, an operator's inner subscriber).
            case subscriber
            /// An `AnyCancellable`.
            case cancellable
            /// A `PassthroughSubject` or `CurrentValueSubject`.
            case subject
            /// An object the user registered with `Lifeline.track(_:name:)`.
            case root
            /// Any other class instance the inspection reached.
            case object
            /// The storage of an array, set or dictionary that holds references.
            case collection
            /// The context of a closure: the box that holds its captures.
            case closureContext = "closure_context"
            /// A global or static variable of the program: its storage, which holds what its
            /// edges lead to for as long as the program runs, unless the program assigns it.
            case global
            /// A Swift concurrency task (`Task { … }`): while it runs, it holds what its closure
            /// captured (`operation (closure)`) and runs on by itself until the closure returns.
            case task

            /// Whether the node holds what it reaches from outside the program's objects: a
            /// root the user registered, or a global variable.
            public var isRoot: Bool { self == .root || self == .global }
        }
    }

    /// Reference counts as the Swift runtime reports them.
    ///
    /// They are counts the graph does or doesn't explain, not exact truth: the compiler's
    /// temporaries and the inspection itself add to the strong count while it runs.
    public struct RetainCounts: Hashable, Sendable {
        /// Strong references (`swift_retainCount`).
        public let strong: Int
        /// `swift_weakRetainCount`: weak references plus one while the object lives.
        public let weak: Int
        /// `swift_unownedRetainCount`: unowned references plus one while the object lives.
        public let unowned: Int
        /// How many of the weak references are the recorder's own: the one to each root
        /// registered with `Lifeline.track(_:name:)`, and, where the recorder holds the objects it
        /// identifies weakly (with the Objective-C runtime), the one to each of those.
        public let recorderWeak: Int
        /// How many of the unowned references are the recorder's own: the one it keeps to every
        /// object it identifies, where it holds them so (without the Objective-C runtime).
        public let recorderUnowned: Int

        /// Creates counts.
        public init(strong: Int, weak: Int, unowned: Int, recorderWeak: Int = 0, recorderUnowned: Int = 0) {
            self.strong = strong
            self.weak = weak
            self.unowned = unowned
            self.recorderWeak = recorderWeak
            self.recorderUnowned = recorderUnowned
        }

        /// The weak references the traced program holds: the runtime's count without its own
        /// one and without the recorder's.
        public var programWeak: Int {
            max(0, weak - 1 - recorderWeak)
        }

        /// The unowned references the traced program holds: the runtime's count without its own
        /// one and without the recorder's.
        public var unownedReferences: Int {
            max(0, unowned - 1 - recorderUnowned)
        }
    }
}
