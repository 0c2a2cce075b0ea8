import AppMutations
import ChatClientApp
import NewsReaderApp
import PortfolioApp

extension MutatedApp {
    /// Every app with slips seeded into it.
    static let all: [MutatedApp] = [newsReader, portfolio, chatClient]

    /// Why no rule can report a token released from a method other than the one that made it.
    private static let releasedElsewhere = "a token set to nil by another method than the one that subscribed is how code "
        + "stops a pipeline on purpose; the log cannot tell that from a slip"

    /// Why no rule can report a stall in an app that cancels the stalled subscriber itself.
    private static let stallEndedByTheApp = "the app cancels the stalled subscriber before recording stops, and a "
        + "stall is only proven by a subscription still open, with both ends alive, at stop"

    private static let newsReader = MutatedApp(
        folder: "NewsReader",
        slips: [
            .reported(.strongSelf, as: ["retain-cycle"]),
            .reported(.droppedStore, as: ["cancelled-immediately"]),
            .unreported(.releasedEarly, because: releasedElsewhere),
        ],
        run: { mutation in
            let app = NewsReaderApp(mutation: mutation)
            app.run()
            app.tearDown()
        }
    )

    private static let portfolio = MutatedApp(
        folder: "Portfolio",
        slips: [
            .reported(.strongSelf, as: ["retain-cycle"]),
            .reported(.droppedStore, as: ["cancelled-immediately"]),
            .unreported(.demandStall, because: stallEndedByTheApp),
        ],
        run: { mutation in
            let app = PortfolioApp(mutation: mutation)
            app.run()
            app.tearDown()
        }
    )

    private static let chatClient = MutatedApp(
        folder: "ChatClient",
        slips: [
            .reported(.strongSelf, as: ["retain-cycle"]),
            .reported(.droppedStore, as: ["cancelled-immediately"]),
        ],
        run: { mutation in
            let app = ChatClientApp(mutation: mutation)
            app.run()
            app.tearDown()
        }
    )
}
