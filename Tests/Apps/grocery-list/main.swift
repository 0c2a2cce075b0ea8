import GroceryListApp
import Lifeline

// Set LIFELINE_TRACE=trace.lifeline to record this run. The marks split the run into its phases,
// for `lifeline render --between shopping closed`. The list screen stays open, so its tasks'
// `for await` loops are still running when the recording stops, and so is the closed recipe's
// (the app's bug).
var app: GroceryListApp?
var summary: GroceryListApp.Summary?
var quiet = false
Lifeline.recordingIfRequested {
    app = GroceryListApp()
    Lifeline.mark("shopping")
    quiet = app?.run() ?? false
    summary = app?.summary
    Lifeline.mark("closed")
    app?.tearDown()
}
if let summary {
    if !quiet { print("the app did not show what was expected in time") }
    print(summary.rows.joined(separator: "\n"))
    print("total \(summary.totalCents) cents, \(summary.status), \(summary.revisions) revisions, banner: \(summary.banner ?? "none")")
    print("at home: \(summary.atHome.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))")
    print("coupons: \(summary.coupons), recipe: \(summary.recipeShown ?? "not shown")")
    print("recipe model outlived its screen: \(summary.recipeModelOutlivedItsScreen) (missing \(summary.recipeModelMissing ?? []))")
}
