import Dispatch
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A simulated chat server: every request answers on the network queue after a short delay.
/// Its first answer to a send is slow, slower than the client's timeout.
final class ChatServer: @unchecked Sendable {
    /// Why a request failed.
    struct Unreachable: Error {}

    private let queues: ChatQueues
    private var sends = 0
    /// Read marks the server has not acknowledged yet (on the network queue).
    private var readMarks: [() -> Void] = []
    /// Messages other people send, per conversation, delivered on the network queue.
    let incoming: [String: PassthroughSubject<Message, Never>] = [
        "ada": PassthroughSubject(), "grace": PassthroughSubject(),
    ]
    /// What the server was told about typing, in order (written on the typing queue).
    private(set) var typingNotices: [String] = []

    init(queues: ChatQueues) {
        self.queues = queues
    }

    /// Sends `text`; the server's acknowledgement carries the message's id. Called on the
    /// network queue.
    func send(_ text: String, to conversation: String) -> Future<Message, Unreachable> {
        sends += 1
        let delay = sends == 1 ? 60 : 3
        let id = sends
        return Future { promise in
            self.queues.run(on: self.queues.network, after: .milliseconds(delay)) {
                promise(.success(Message(id: id, conversation: conversation, text: text)))
            }
        }
    }

    /// The last messages of `conversation`, read from disk.
    func history(of conversation: String) -> Future<[Message], Never> {
        Future { promise in
            self.queues.run(on: self.queues.storage, after: .milliseconds(2)) {
                promise(.success((1...3).map { Message(id: -$0, conversation: conversation, text: "old \($0)") }))
            }
        }
    }

    /// The contacts whose name starts with `prefix`; a prefix of one letter is refused.
    func contacts(matching prefix: String) -> Future<[String], Unreachable> {
        Future { promise in
            self.queues.run(on: self.queues.network, after: .milliseconds(4)) {
                guard prefix.count > 1 else { return promise(.failure(Unreachable())) }
                promise(.success(["ada", "alan", "grace"].filter { $0.hasPrefix(prefix) }))
            }
        }
    }

    /// Marks `ids` as read; answers how many were marked at the next ``syncReadMarks()``, as
    /// the server batches read marks.
    func markRead(_ ids: [Int]) -> Future<Int, Never> {
        Future { promise in
            self.queues.run(on: self.queues.network, after: .milliseconds(0)) {
                self.readMarks.append { promise(.success(ids.count)) }
            }
        }
    }

    /// Acknowledges every read mark sent so far, on the network queue.
    func syncReadMarks() {
        queues.run(on: queues.network, after: .milliseconds(1)) {
            let acknowledgements = self.readMarks
            self.readMarks = []
            for acknowledge in acknowledgements { acknowledge() }
        }
    }

    /// Tells the other side that the user is typing `draft`.
    func noteTyping(_ draft: String) {
        typingNotices.append(draft)
    }

    /// Someone in `conversation` writes `text`.
    func deliver(_ text: String, in conversation: String, id: Int) {
        queues.run(on: queues.network, after: .milliseconds(1)) {
            self.incoming[conversation]?.send(Message(id: id, conversation: conversation, text: text))
        }
    }
}
