#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// What the app is doing, as lines for the activity screen: each part of the app reports on
/// its own queue (the scanner on the disk queue, uploads on the network queue, thumbnails on
/// the thumbnails queue).
final class ActivityLog {
    let scans = PassthroughSubject<String, Never>()
    let uploads = PassthroughSubject<String, Never>()
    let thumbnails = PassthroughSubject<String, Never>()

    /// Every line, from every part of the app. OpenCombine has no `merge`, so the subjects are
    /// merged the way apps did before it, with `flatMap`; the lines arrive on three queues.
    var lines: AnyPublisher<String, Never> {
        [scans, uploads, thumbnails].publisher
            .flatMap { $0 }
            .eraseToAnyPublisher()
    }

    /// Ends every stream, as the app does when it quits.
    func finish() {
        for subject in [scans, uploads, thumbnails] { subject.send(completion: .finished) }
    }
}
