import AppMutations
import Foundation

/// A small account settings app, written the way a SwiftUI app's view models are: a sign-up
/// screen whose form is an `ObservableObject` with `@Published` fields and `assign(to:)`
/// pipelines (a debounced availability check through `switchToLatest`, a password rating
/// through `tryMap` and `catch`, sending through `flatMap(maxPublishers: .max(1))`), a draft
/// store listening to `NotificationCenter`, and a profile screen showing the server's status
/// lines. Its one bug is in ``ProfileModel``: an `assign(to:on: self)` keeps the model alive
/// after its screen closes.
public final class AccountSettingsApp: @unchecked Sendable {
    /// What the app showed, once it is quiet.
    public struct Summary: Equatable, Sendable {
        /// The accounts the server registered.
        public var registered: [String]
        /// The sign-up screen's answers, in order.
        public var messages: [String]
        /// The drafts the draft store saved.
        public var drafts: [String]
        /// Whether the sign-up form was released when its screen closed (it should be).
        public var formReleased: Bool
        /// Whether the profile model is still alive after its screen closed (the bug).
        public var profileModelOutlivedItsScreen: Bool
        /// The profile model's last status line.
        public var lastStatus: String?
        /// What the profile screen showed before it closed.
        public var profile: ProfileShown?
    }

    /// What the profile screen showed.
    public struct ProfileShown: Equatable, Sendable {
        public var header: String?
        public var token: String?
        public var avatars: [String]
        public var loadsInFlight: Int
    }

    private let queues = SettingsQueues()
    private let server: AccountServer
    private let draftStore = DraftStore()
    private let avatars: AvatarCache
    private var signUp: SignUpScreen?
    private var profile: ProfileScreen?
    private var messages: [String] = []
    private var profileShown: ProfileShown?
    private weak var closedForm: SignUpForm?
    private weak var closedProfileModel: ProfileModel?

    private let mutation: AppMutation

    /// Builds the app's server and avatar cache; the screens are made as the user opens them.
    ///
    /// - Parameter mutation: a slip to seed into the app (none by default): a strong `self` in
    ///   the profile screen's redraw sink, a dropped token for it, or a password check that
    ///   `flatMap`s each password into the server's never-ending password policy. The other kinds
    ///   change nothing: the app has no hand-written subscriber, and it releases no token early
    ///   without meaning to.
    public init(mutation: AppMutation = .none) {
        self.mutation = mutation
        server = AccountServer(queues: queues)
        avatars = AvatarCache(server: server, queues: queues)
    }

    /// Plays a user's visit: signs up (a taken name, then a free one; a refused e-mail address,
    /// then a good one), sends the app to the background once, closes the sign-up screen, opens
    /// the profile screen, refreshes its contacts, closes it, goes back to the sign-up screen for a moment, and leaves
    /// while the server keeps sending status lines.
    ///
    /// - Returns: `false` if the app's queues did not go quiet within ten seconds.
    public func run() -> Bool {
        queues.onUI { signUp = SignUpScreen(server: server, queues: queues, mutation: mutation) }
        draftStore.start(queues: queues) { [weak self] in self?.currentDraft() }

        type(\.userName, ["a", "al", "ali", "alic", "alice"])
        waitOutTheTypingPause()
        guard queues.drain() else { return false }
        type(\.userName, ["alice7"])
        waitOutTheTypingPause()
        type(\.password, ["abc", "correct", "correct horse"])
        type(\.email, ["alice7", "alice7-example.org"])
        guard queues.drain() else { return false }
        send()
        guard queues.drain() else { return false }
        type(\.email, ["alice7@", "alice7@example.org"])
        guard queues.drain() else { return false }
        send()
        guard queues.drain() else { return false }

        queues.onUI { NotificationCenter.default.post(name: DraftStore.willResignActive, object: nil) }
        guard queues.drain() else { return false }

        queues.onUI {
            closedForm = signUp?.form
            signUp = nil
        }

        queues.onUI {
            profile = ProfileScreen(user: "alice7", contacts: ["bob", "carol"], server: server, avatars: avatars, queues: queues, mutation: mutation)
        }
        server.pushStatus("online")
        guard queues.drain() else { return false }
        // A refresh of the contacts: carol's avatar comes from the cache, dave's from the server.
        queues.onUI { profile?.loadAvatars(of: ["carol", "dave"]) }
        guard queues.drain() else { return false }
        queues.onUI {
            profileShown = profile.map { ProfileShown(header: $0.header, token: $0.token, avatars: $0.avatars, loadsInFlight: $0.loadsInFlight) }
            closedProfileModel = profile?.model
            profile?.close()
            profile = nil
        }
        guard queues.drain() else { return false }

        // Back on the sign-up screen for a moment, then away from the app: the server's next
        // status line still reaches the closed profile's model.
        queues.onUI { signUp = SignUpScreen(server: server, queues: queues, mutation: mutation) }
        type(\.userName, ["bob"])
        waitOutTheTypingPause()
        guard queues.drain() else { return false }
        queues.onUI { signUp = nil }
        guard queues.drain() else { return false }
        server.pushStatus("away")
        return queues.drain()
    }

    /// What the app shows once it is quiet.
    public var summary: Summary {
        queues.onUI {
            Summary(
                registered: server.accounts,
                messages: messages,
                drafts: draftStore.saved,
                formReleased: closedForm == nil,
                profileModelOutlivedItsScreen: closedProfileModel != nil,
                lastStatus: closedProfileModel?.status,
                profile: profileShown
            )
        }
    }

    /// Quits: the draft store stops listening.
    public func tearDown() {
        draftStore.stop()
        _ = queues.drain()
    }

    /// Types each text into a field of the sign-up form, a few milliseconds apart, on the UI
    /// queue.
    private func type(_ field: ReferenceWritableKeyPath<SignUpForm, String>, _ texts: [String]) {
        for text in texts {
            queues.onUI { signUp?.form[keyPath: field] = text }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    /// Waits until the form's debounce has fired: OpenCombine schedules it with `asyncAfter`,
    /// which does not count it as pending work.
    private func waitOutTheTypingPause() {
        Thread.sleep(forTimeInterval: 0.06)
    }

    /// Taps the send button, and keeps the answer the screen shows.
    private func send() {
        queues.onUI { signUp?.form.send() }
        guard queues.drain() else { return }
        queues.onUI {
            if let message = signUp?.message, messages.last != message { messages.append(message) }
        }
    }

    /// What the draft store saves: the sign-up form's name and e-mail address, read on the UI
    /// queue.
    private func currentDraft() -> String? {
        queues.onUI { signUp.map { "\($0.form.userName) <\($0.form.email)>" } }
    }
}
