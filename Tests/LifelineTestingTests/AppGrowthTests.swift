import AccountSettingsApp
import ChatClientApp
import DownloadCenterApp
import GroceryListApp
import Lifeline
import LifelineAnalysis
import LifelineTesting
import NewsReaderApp
import PhotoBackupApp
import PortfolioApp
import Testing

/// The seven realistic apps (Tests/Apps), each made, run and torn down five times in a row:
/// the apps whose documented bug keeps a model alive through its own subscription leave one
/// more of it with each run, and that is the only error the growth check finds in them, led by
/// the line that made the model's pipeline. The others grow no program object.
@Suite("Growth of the realistic apps run again and again", .serialized)
struct AppGrowthTests {
    /// An app, and what leads each error the growth check finds in it.
    struct Case: CustomTestStringConvertible, Sendable {
        let app: String
        let run: @Sendable () -> Void
        let leaders: [String]
        var testDescription: String { app }
    }

    static let cases = [
        Case(app: "account settings", run: { let app = AccountSettingsApp(); _ = app.run(); app.tearDown() },
             leaders: ["pipelines made at ProfileModel.swift:22"]),
        Case(app: "chat client", run: { let app = ChatClientApp(); _ = app.run(); app.tearDown() }, leaders: []),
        Case(app: "download center", run: { let app = DownloadCenterApp(); _ = app.run(); app.tearDown() },
             leaders: ["MirrorServer objects"]),
        Case(app: "grocery list", run: { let app = GroceryListApp(); _ = app.run(); app.tearDown() },
             leaders: ["pipelines made at RecipeModel.swift:28"]),
        Case(app: "news reader", run: { let app = NewsReaderApp(); _ = app.run(); app.tearDown() },
             leaders: ["pipelines made at ArticleStore.swift:21"]),
        Case(app: "photo backup", run: { let app = PhotoBackupApp(); _ = app.run(); app.tearDown() },
             leaders: ["pipelines made at BackupService.swift:34"]),
        Case(app: "portfolio", run: { let app = PortfolioApp(); _ = app.run(); app.tearDown() },
             leaders: ["pipelines made at PortfolioModel.swift:22"]),
    ]

    @Test(arguments: cases)
    func eachErrorIsTheAppsOwnLeakLedByTheLineThatMadeIt(_ app: Case) throws {
        let findings = try LifecycleCheck().run(iterations: 5) { app.run() }
        let report = findings.failureMessage
        #expect(findings.diagnoses.allSatisfy { $0.code == "lifecycle-growth" }, "\(report)")
        let errors = findings.diagnoses.filter { $0.severity == .error }
        let leaders = errors.map { error in
            String(error.message.split(separator: " on: ", maxSplits: 1).last?.prefix { $0 != "(" } ?? "")
                .trimmingCharacters(in: .whitespaces)
        }
        #expect(leaders == app.leaders, "\(report)")
        for error in errors {
            #expect(error.message.hasPrefix("Each run of the scenario left more behind than the run before, from run 2 of 5 on: "),
                    "\(error.message)")
        }
    }
}
