import Foundation
import Lifeline

/// The recipe screen's model: which of a recipe's ingredients the pantry lacks, kept up to date
/// from the pantry's `@Published` stock.
///
/// **Its bug:** it keeps the `Task` that iterates `pantry.$stock.values`, and the task's closure
/// uses `self` strongly. The task is suspended in its `for await` loop whenever the pantry is
/// quiet, and the pantry never finishes, so the loop never ends on its own; ``stop()`` would
/// cancel it, but ``RecipeScreen`` lets go of the model without calling it. From then on the
/// model holds the task that holds the model: it outlives its screen and keeps working out
/// what is missing for a recipe nobody sees. The fix is to cancel the task when the screen
/// closes (or in `deinit`, with `[weak self]` in the task, as ``ListViewModel`` does).
final class RecipeModel: @unchecked Sendable {
    let recipe: String
    private(set) var missing: [String] = []
    /// How many times the model worked out what is missing.
    private(set) var updates = 0
    private let ingredients: [String: Int]
    private let queues: GroceryQueues
    private var task: Task<Void, Never>?

    init(recipe: String, ingredients: [String: Int], pantry: Pantry, queues: GroceryQueues) {
        self.recipe = recipe
        self.ingredients = ingredients
        self.queues = queues
        task = Task {
            for await stock in pantry.$stock.lifeline("recipe pantry").values {
                self.apply(stock)
            }
        }
    }

    /// Stops following the pantry. Nobody calls it.
    func stop() {
        task?.cancel()
    }

    private func apply(_ stock: [String: Int]) {
        let missing = ingredients.filter { stock[$0.key, default: 0] < $0.value }.map(\.key).sorted()
        queues.ui.async {
            self.missing = missing
            self.updates += 1
        }
    }
}
