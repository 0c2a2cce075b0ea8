#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A view model that shows the names a publisher sends, and keeps its subscription in a
/// stored `AnyCancellable`.
///
/// With `capturesSelfWeakly` false, the sink's closure captures `self` strongly, which closes a
/// loop: the view model holds the `AnyCancellable`, which holds the sink, whose closure holds
/// the view model. Nothing outside can free it any more. With `capturesSelfWeakly` true, the
/// closure uses `[weak self]` and the view model dies with its last outside reference,
/// cancelling its subscription on the way.
final class ProfileViewModel {
    private let console: SampleConsole
    private let variant: String
    private var cancellable: AnyCancellable?
    private(set) var name = ""

    /// Creates a view model that shows every name `names` sends.
    init(
        names: PassthroughSubject<String, Never>, capturesSelfWeakly: Bool,
        console: SampleConsole
    ) {
        self.console = console
        variant = capturesSelfWeakly ? "weak-self" : "strong-self"
        if capturesSelfWeakly {
            cancellable = names.sink { [weak self] name in self?.show(name) }
        } else {
            cancellable = names.sink { name in self.show(name) }
        }
    }

    private func show(_ name: String) {
        self.name = name
        console.print("\(variant) view model shows \"\(name)\"")
    }

    deinit {
        console.print("deinit \(variant) view model")
    }
}
