import Foundation

/// The recipe screen: shows what a recipe needs that the pantry lacks, and puts it on the
/// shopping list with one tap. It owns its ``RecipeModel`` and, when it closes, simply lets go
/// of it, as screens do; it never calls the model's `stop()` (the app's bug, see the model).
final class RecipeScreen: @unchecked Sendable {
    let model: RecipeModel
    private let store: ListStore
    private let queues: GroceryQueues

    init(recipe: String, ingredients: [String: Int], pantry: Pantry, store: ListStore, queues: GroceryQueues) {
        model = RecipeModel(recipe: recipe, ingredients: ingredients, pantry: pantry, queues: queues)
        self.store = store
        self.queues = queues
    }

    /// What the screen shows: the recipe and what to buy for it.
    var shown: String {
        "\(model.recipe): buy \(model.missing.isEmpty ? "nothing" : model.missing.joined(separator: ", "))"
    }

    /// The shopper taps "Add to list": every missing ingredient goes on the list, which syncs.
    func addMissingToList() {
        let missing = model.missing
        queues.task { [store] in
            for name in missing { store.add(name) }
            await store.sync()
        }
    }
}
