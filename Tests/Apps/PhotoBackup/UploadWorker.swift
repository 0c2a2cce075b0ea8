#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A hand-written subscriber that uploads photos one at a time: it asks for one photo, returns
/// `.none` while the upload runs, and asks for the next from the network queue when the server
/// has answered.
///
/// The bug is in the failure path of ``receive(_:)``: when the server refuses a photo, the
/// worker notes the failure and never asks for another photo. The scan upstream keeps the rest
/// buffered, and the backup stops at the first refused photo. The fix is to ask for the next
/// photo on failure too (`subscription?.request(.max(1))` in both branches).
final class UploadWorker: Subscriber {
    typealias Input = Photo
    typealias Failure = Never

    private let server: PhotoServer
    private var subscription: Subscription?
    /// The upload in flight.
    private var upload: AnyCancellable?
    /// The size of each photo uploaded, sent on the network queue.
    let uploadedBytes = PassthroughSubject<Int, Never>()
    private(set) var uploaded: [Int] = []
    private(set) var refused: [Int] = []
    private(set) var isDone = false

    init(server: PhotoServer) {
        self.server = server
    }

    func receive(subscription: Subscription) {
        self.subscription = subscription
        subscription.request(.max(1))
    }

    func receive(_ photo: Photo) -> Subscribers.Demand {
        upload = server.upload(photo)
            .sink { [weak self] completion in
                guard let self else { return }
                switch completion {
                case .finished:
                    self.subscription?.request(.max(1))
                case .failure(.tooLarge(let id)):
                    // The bug: no request for the next photo here, so the backup stalls.
                    self.refused.append(id)
                }
            } receiveValue: { [weak self] receipt in
                self?.uploaded.append(receipt.photo)
                self?.uploadedBytes.send(receipt.bytes)
            }
        return .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        isDone = true
        subscription = nil
    }

    /// Stops uploading, and cancels the upload in flight.
    func cancel() {
        upload = nil
        subscription?.cancel()
        subscription = nil
    }
}
