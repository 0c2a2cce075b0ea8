import LifelineLog

/// A leak written the way LeakCanary writes one: the chain of strong references that keeps the
/// leaked objects alive, one step per object with its verdict and the fact behind it, and the
/// references a fix has to change marked as suspects.
///
/// The verdicts come only from what the log proves (see ``LoopVerdict``): an object is
/// ``Verdict/expected`` to live when something alive outside can still end it, ``Verdict/stuck``
/// when it should be gone (its work was over, its owner let go of it, nothing outside can reach
/// it), and ``Verdict/unknown`` otherwise. The suspect references are those between the last
/// expected object and the first stuck one, and along a loop, those the program's own objects
/// hold: the references the program made, which a fix can break or weaken.
///
/// ```text
/// ProfileScreen #255 (ProfileScreen.swift:20): expected, alive outside the loop
///   ↓ ProfileScreen.model
/// ProfileModel #248: stuck, only the loop held it from snapshot 183 on
///   ↓ ProfileModel.cancellables  (suspect)
/// ```
public struct LeakTrace: Hashable, Sendable {
    /// What the log proves about one object of a leak trace.
    public enum Verdict: String, Hashable, Sendable {
        /// It may live: something alive outside can still end it.
        case expected
        /// It should be gone.
        case stuck
        /// Nothing is proven either way.
        case unknown
    }

    /// One object of the trace, and the reference from it to the next one.
    public struct Step: Hashable, Sendable {
        /// The object.
        public let object: TraceObjectID
        /// What the log proves about it.
        public let verdict: Verdict
        /// The fact behind the verdict, in words: `completed at @35`, `alive, outside the loop`.
        public let reason: String
        /// The reference to the next step's object, as `Holder.field` (`ProfileModel.cancellables`);
        /// `nil` for the last step.
        public let reference: String?
        /// Whether ``reference`` is one a fix has to change.
        public let isSuspect: Bool

        /// Creates a step.
        public init(object: TraceObjectID, verdict: Verdict, reason: String, reference: String?, isSuspect: Bool) {
            self.object = object
            self.verdict = verdict
            self.reason = reason
            self.reference = reference
            self.isSuspect = isSuspect
        }
    }

    /// The objects from the outermost holder to the last one kept.
    public let steps: [Step]
    /// For a loop, the position of the step the last step's reference leads back to.
    public let loopStart: Int?

    /// Creates a trace.
    public init(steps: [Step], loopStart: Int?) {
        self.steps = steps
        self.loopStart = loopStart
    }

    /// The suspect references in words, with no ids: what a fingerprint is made of.
    public var suspects: [String] {
        steps.filter(\.isSuspect).compactMap(\.reference)
    }
}
