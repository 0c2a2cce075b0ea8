#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// An introspection handler that records nothing: enabled by `Lifeline.prepare()`, it keeps
/// Combine's hook installed between recordings, so that Combine puts its taps on every
/// pipeline subscribed meanwhile and a later automatic recording sees their calls.
final class PreparedHook: _Introspection, Sendable {}
