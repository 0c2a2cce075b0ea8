import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// One conversation screen: its messages, the draft, typing notices, sending and read marks.
///
/// The bug is in ``markAllRead()``: its token is thrown away with `_ =`, so the request is
/// cancelled as soon as it is made and the unread count never resets.
///
/// Everything else is correct: the state lives in `CurrentValueSubject`s; typing notices are
/// throttled on the typing queue; a send runs through `Deferred`, `Future`, `timeout`, `retry`
/// and `catch` on the network queue; the history is read with `subscribe(on:)` the storage
/// queue; every token is stored and every sink holds `self` weakly.
final class ConversationModel {
    let name: String
    /// The messages on screen, oldest first.
    let messages = CurrentValueSubject<[Message], Never>([])
    /// The text being typed.
    let draft = CurrentValueSubject<String, Never>("")
    /// Messages that did not go out.
    private(set) var failed: [String] = []
    private(set) var unread = 0
    private let server: ChatServer
    private let queues: ChatQueues
    private var cancellables = Set<AnyCancellable>()

    init(name: String, server: ChatServer, queues: ChatQueues) {
        self.name = name
        self.server = server
        self.queues = queues

        draft
            .dropFirst()
            .removeDuplicates()
            .throttle(for: .milliseconds(15), scheduler: queues.typing, latest: true)
            .sink { [server] text in server.noteTyping(text) }
            .store(in: &cancellables)

        server.history(of: name)
            .subscribe(on: queues.storage, options: queues.schedulerOptions)
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] old in self?.messages.value.insert(contentsOf: old, at: 0) }
            .store(in: &cancellables)

        server.incoming[name]?
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] message in
                self?.messages.value.append(message)
                self?.unread += 1
            }
            .store(in: &cancellables)
    }

    /// Sends the draft. The server's first answer is slow: `timeout` gives up on it and
    /// `retry(1)` sends again; a send that still fails is kept as failed.
    func sendDraft() {
        let text = draft.value
        let name = self.name
        let server = self.server
        draft.send("")
        Deferred { server.send(text, to: name) }
            .subscribe(on: queues.network, options: queues.schedulerOptions)
            .timeout(.milliseconds(30), scheduler: queues.network, options: queues.schedulerOptions, customError: {
                ChatServer.Unreachable()
            })
            .retry(1)
            .map { Optional($0) }
            .catch { _ in Just(nil) }
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] sent in
                guard let self else { return }
                if let sent { self.messages.value.append(sent) } else { self.failed.append(text) }
            }
            .store(in: &cancellables)
    }

    /// Tells the server everything on screen was read.
    ///
    /// The bug: `_ =` drops the token, so the request is cancelled before the server answers,
    /// and `unread` is never reset. The fix is `.store(in: &cancellables)`.
    func markAllRead() {
        let ids = messages.value.map(\.id).filter { $0 > 0 }
        _ = server.markRead(ids)
            .receive(on: queues.ui, options: queues.schedulerOptions)
            .sink { [weak self] _ in self?.unread = 0 }
    }
}
