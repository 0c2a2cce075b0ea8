import Foundation

/// A small grocery list app, written the way Combine and Swift concurrency are mixed today:
/// services own `CurrentValueSubject`s, `PassthroughSubject`s and an `ObservableObject` with a
/// `@Published` field; view models bridge them into `Task { for await x in publisher.values }`
/// loops, and an `AsyncStream` bridges a subject for a helper object; changes go through
/// `async` functions awaited from tasks, which update the subjects; the sync state comes
/// through `sink` with `[weak self]`; three queues. Two bugs: ``RecipeModel`` keeps the task
/// that keeps it, and its screen lets go of it without cancelling the task (`retain-cycle`),
/// and ``CouponWallet`` drops its token with `_ =` (`cancelled-immediately`).
///
/// Each of its six pipelines is marked with `.lifeline(_:)`, as a developer who suspects them
/// would, so that `LIFELINE_OPTIONS=operator-only` records those hops alone; recorded either
/// way, Lifeline finds the same two bugs.
public final class GroceryListApp: @unchecked Sendable {
    /// What the app showed, once it is quiet.
    public struct Summary: Equatable, Sendable {
        /// The list screen's rows.
        public var rows: [String]
        /// The total of what is still to buy, in cents.
        public var totalCents: Int
        /// The list screen's sync line.
        public var status: String
        /// What the list screen says the pantry has.
        public var atHome: [String: Int]
        /// The deals banner.
        public var banner: String?
        /// The coupons the wallet collected (none: the app's second bug).
        public var coupons: [String]
        /// How many revisions of the list the server kept.
        public var revisions: Int
        /// What the recipe screen showed before it closed.
        public var recipeShown: String?
        /// Whether the recipe model is still alive after its screen closed (the app's first bug).
        public var recipeModelOutlivedItsScreen: Bool
        /// What the closed recipe's model last worked out is missing.
        public var recipeModelMissing: [String]?
    }

    private let queues = GroceryQueues()
    private let server: GroceryServer
    private let store: ListStore
    private let pantry = Pantry()
    private let wallet: CouponWallet
    private var list: ListViewModel?
    private var recipe: RecipeScreen?
    private var recipeShown: String?
    private weak var closedRecipeModel: RecipeModel?

    public init() {
        server = GroceryServer(queues: queues)
        store = ListStore(server: server)
        wallet = CouponWallet(server: server, queues: queues)
    }

    /// Plays a shopper's visit: adds milk and bread, puts eggs and milk in the pantry, opens a
    /// pancake recipe and adds what it lacks to the list, closes the recipe, sees a deal on
    /// flour (and none on coffee, which is not on the list), is sent a coupon, checks the milk
    /// off and puts the eggs and flour away, with the list screen still open.
    ///
    /// - Returns: `false` if the app did not show what was expected within ten seconds.
    public func run() -> Bool {
        queues.onUI {
            list = ListViewModel(store: store, pantry: pantry, server: server, queues: queues)
            wallet.start()
        }
        for (name, quantity) in [("milk", 2), ("bread", 1)] {
            queues.onUI { list?.add(name, quantity: quantity) }
            guard queues.drain() else { return false }
        }
        guard queues.waitUntil({ list?.rows.count == 2 }) else { return false }

        pantry.restock("eggs", 2)
        pantry.restock("milk", 1)
        queues.onUI {
            recipe = RecipeScreen(
                recipe: "pancakes", ingredients: ["eggs": 3, "milk": 1, "flour": 1], pantry: pantry, store: store, queues: queues
            )
        }
        guard queues.waitUntil({ recipe?.model.missing == ["eggs", "flour"] }) else { return false }
        queues.onUI {
            recipeShown = recipe?.shown
            recipe?.addMissingToList()
        }
        guard queues.drain(), queues.waitUntil({ list?.rows.count == 4 }) else { return false }
        queues.onUI {
            closedRecipeModel = recipe?.model
            recipe = nil
        }

        server.announce(Deal(name: "coffee", percentOff: 50))
        server.announce(Deal(name: "flour", percentOff: 20))
        guard queues.drain(), queues.waitUntil({ list?.banner.text != nil }) else { return false }
        server.sendCoupon("SAVE5")
        guard queues.drain() else { return false }

        queues.onUI { list?.toggle("milk") }
        guard queues.drain() else { return false }
        pantry.restock("eggs", 1)
        pantry.restock("flour", 2)
        // The closed recipe's model still follows the pantry: the bug, seen from outside.
        return queues.waitUntil {
            list?.atHome == ["eggs": 3, "milk": 1, "flour": 2] && list?.totalCents == 720
                && closedRecipeModel?.missing == []
        } && queues.drain()
    }

    /// What the app shows once it is quiet.
    public var summary: Summary {
        let revisions = server.revisionCount
        return queues.onUI {
            Summary(
                rows: list?.rows ?? [],
                totalCents: list?.totalCents ?? 0,
                status: list?.status ?? "",
                atHome: list?.atHome ?? [:],
                banner: list?.banner.text,
                coupons: wallet.codes,
                revisions: revisions,
                recipeShown: recipeShown,
                recipeModelOutlivedItsScreen: closedRecipeModel != nil,
                recipeModelMissing: closedRecipeModel?.missing
            )
        }
    }

    /// Quits: waits for what the app still has to do. The list screen stays open to the end.
    public func tearDown() {
        _ = queues.drain()
    }
}
