import AppMutations
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombineShim
#endif

/// A chat client written the way real apps are, the third app Lifeline is tried on, and the
/// first nobody tuned it against: a heartbeat from a DispatchSource timer wrapped in a
/// hand-written publisher and shared with `share()`, conversation state in
/// `CurrentValueSubject`s, typing notices through `removeDuplicates` and `throttle`, sends
/// through `Deferred`, `Future`, `subscribe(on:)`, `timeout`, `retry` and `catch`, a contact
/// search through `debounce`, `flatMap(maxPublishers:)` and `replaceError`, pinned previews
/// merged and collected, a merged incoming stream into a hand-written subscriber, and `assign(to:on:)`
/// into a status bar, across five queues.
///
/// It has exactly one bug, documented where it is written:
/// ``ConversationModel/markAllRead()`` drops its token with `_ =`, so the request is
/// cancelled right after it is made (cancelled immediately).
///
/// Everything else is correct, including what cancels on purpose: `timeout` giving up on a
/// slow send and `retry` sending again, `flatMap(maxPublishers:)` holding back a lookup,
/// `disconnect()` cancelling the shared heartbeat and the badge cancelled by hand.
public final class ChatClientApp: @unchecked Sendable {
    private let queues = ChatQueues()
    private let server: ChatServer
    private var connection: ConnectionModel?
    private var conversations: [String: ConversationModel] = [:]
    private var contacts: ContactSearchModel?
    private var inbox: InboxModel?

    /// Builds the app's models and subscribes their pipelines.
    ///
    /// - Parameter mutation: a slip to seed into the app (none by default): a strong `self` in
    ///   the contact search's sink, or a dropped token for it. The other kinds change nothing:
    ///   the app's one hand-written subscriber is cancelled by the app, its one `flatMap` over a
    ///   sequence gets two values, and it releases no token early without meaning to.
    public init(mutation: AppMutation = .none) {
        server = ChatServer(queues: queues)
        connection = ConnectionModel(queues: queues)
        for name in ["ada", "grace"] {
            conversations[name] = ConversationModel(name: name, server: server, queues: queues)
        }
        contacts = ContactSearchModel(server: server, queues: queues, mutation: mutation)
        inbox = InboxModel(server: server, queues: queues)
    }

    /// Runs about a quarter of a second of chatting: the heartbeat beats, Ada and Grace write,
    /// the user types and sends two messages to Ada (the first times out once), reads the chat,
    /// looks up a contact, and the app disconnects. Returns once every queue is quiet.
    ///
    /// - Returns: `false` if the app's queues did not go quiet within ten seconds.
    @discardableResult
    public func run() -> Bool {
        guard let connection, let ada = conversations["ada"], let contacts, let inbox else { return false }
        server.deliver("hi!", in: "ada", id: 101)
        server.deliver("lunch?", in: "grace", id: 201)
        for text in ["H", "He", "Hel", "Hello", "Hello"] { ada.draft.send(text) }
        ada.sendDraft()
        pause()
        server.deliver("are you there?", in: "ada", id: 102)
        ada.draft.send("Yes")
        ada.sendDraft()
        for text in ["a", "al", "ala"] { contacts.query.send(text) }
        pause()
        contacts.query.send("gr")
        ada.markAllRead()
        pause()
        server.syncReadMarks()
        server.deliver("see you", in: "grace", id: 202)
        pause()
        inbox.close()
        connection.disconnect()
        return queues.drain()
    }

    /// Lets the screens go, as the app does when the user closes it.
    public func tearDown() {
        connection = nil
        conversations = [:]
        contacts = nil
        inbox = nil
    }

    /// Lets the heartbeat beat a few times, and the queues catch up.
    private func pause() {
        Thread.sleep(forTimeInterval: 0.05)
        for queue in [queues.network, queues.storage, queues.typing, queues.ui] { queue.sync {} }
    }
}
