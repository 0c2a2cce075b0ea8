import AccountSettingsApp
import AppMutations
import ChatClientApp
import DownloadCenterApp
import NewsReaderApp
import PhotoBackupApp
import PortfolioApp

extension MutatedApp {
    /// Every app with slips seeded into it.
    static let all: [MutatedApp] = [newsReader, portfolio, chatClient, photoBackup, downloadCenter, accountSettings]

    /// Why no rule can report a token released from a method other than the one that made it.
    private static let releasedElsewhere = "a token set to nil by another method than the one that subscribed is how code "
        + "stops a pipeline on purpose; the log cannot tell that from a slip"

    /// Why no rule can report a stall in an app that cancels the stalled subscriber itself.
    private static let stallEndedByTheApp = "the app cancels the stalled subscriber before recording stops, and a "
        + "stall is only proven by a subscription still open, with both ends alive, at stop"

    private static let newsReader = MutatedApp(
        NewsReaderApp.self,
        folder: "NewsReader",
        slips: [
            .reported(.strongSelf, as: ["retain-cycle"]),
            .reported(.droppedStore, as: ["cancelled-immediately"]),
            .unreported(.releasedEarly, because: releasedElsewhere),
        ]
    )

    private static let portfolio = MutatedApp(
        PortfolioApp.self,
        folder: "Portfolio",
        slips: [
            .reported(.strongSelf, as: ["retain-cycle"]),
            .reported(.droppedStore, as: ["cancelled-immediately"]),
            .unreported(.demandStall, because: stallEndedByTheApp),
        ]
    )

    private static let chatClient = MutatedApp(
        ChatClientApp.self,
        folder: "ChatClient",
        slips: [
            .reported(.strongSelf, as: ["retain-cycle"]),
            .reported(.droppedStore, as: ["cancelled-immediately"]),
        ]
    )

    private static let photoBackup = MutatedApp(
        PhotoBackupApp.self,
        folder: "PhotoBackup",
        slips: [
            .reported(.droppedStore, as: ["cancelled-immediately"]),
        ]
    )

    private static let downloadCenter = MutatedApp(
        DownloadCenterApp.self,
        folder: "DownloadCenter",
        slips: [
            .reported(.droppedStore, as: ["cancelled-immediately"]),
        ]
    )

    private static let accountSettings = MutatedApp(
        AccountSettingsApp.self,
        folder: "AccountSettings",
        slips: [
            .unreported(.strongSelf, because: "the profile screen's loop runs through its model, which the server's "
                + "status lines keep alive (the app's documented bug): a loop an owner outside still holds is not a finding"),
            .reported(.droppedStore, as: ["cancelled-immediately"]),
            .reported(.endlessInner, as: ["growing-subscriptions"]),
        ]
    )
}
