import AccountSettingsApp
import AppMutations
import ChatClientApp
import DownloadCenterApp
import NewsReaderApp
import PhotoBackupApp
import PortfolioApp

/// What the seeded-mutation test needs of an app in Tests/Apps: built with a slip seeded into
/// it, run until its queues are quiet, and torn down.
protocol SeedableApp {
    init(mutation: AppMutation)
    /// Runs the app; `false` if its queues did not go quiet.
    func run() -> Bool
    func tearDown()
    /// Stops what outlives the app's screens, once the recording has stopped.
    func quit()
}

extension SeedableApp {
    /// Most apps have nothing that outlives their screens.
    func quit() {}
}

extension NewsReaderApp: SeedableApp {}
extension PortfolioApp: SeedableApp {}
extension ChatClientApp: SeedableApp {}
extension DownloadCenterApp: SeedableApp {}
extension AccountSettingsApp: SeedableApp {}
extension PhotoBackupApp: SeedableApp {}
