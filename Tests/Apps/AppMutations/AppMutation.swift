import Foundation

/// A slip seeded into one of the apps in Tests/Apps, to check that `lifeline diff` reports it as
/// exactly one new finding against the app's unmutated run.
///
/// Each app takes one in its initializer (``none`` by default, which leaves the app exactly as
/// documented) and changes one natural spot of its code the way a developer's slip would. The
/// apps' executables read it from the `LIFELINE_APP_MUTATION` environment variable:
///
/// ```
/// LIFELINE_TRACE=mutated.lifeline LIFELINE_APP_MUTATION=strong-self news-reader
/// ```
public enum AppMutation: String, CaseIterable, Sendable {
    /// The app as written, with only its documented bugs.
    case none
    /// A sink's `[weak self]` made strong, in a sink whose owner should go away.
    case strongSelf = "strong-self"
    /// A `.store(in:)` dropped: the token is discarded and the pipeline cancelled at once.
    case droppedStore = "dropped-store"
    /// A subscriber that requests `.max(1)` and then returns `.none` for every value.
    case demandStall = "demand-stall"
    /// An owner that sets its `AnyCancellable` to nil before the work it waits for is done.
    case releasedEarly = "released-early"
    /// A `flatMap` whose inner publisher never completes while the outer keeps sending.
    case endlessInner = "endless-inner"

    /// The name of the environment variable the apps' executables read the mutation from.
    public static let environmentVariable = "LIFELINE_APP_MUTATION"

    /// The mutation the process's environment asks for: ``none`` when the variable is unset.
    ///
    /// An unknown name stops the process with the names it knows, so that a typo never runs the
    /// unmutated app by mistake.
    public static var requested: AppMutation {
        guard let name = ProcessInfo.processInfo.environment[environmentVariable] else { return .none }
        guard let mutation = AppMutation(rawValue: name) else {
            let known = allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("\(environmentVariable)=\(name) is not one of: \(known)\n".utf8))
            exit(2)
        }
        return mutation
    }
}
