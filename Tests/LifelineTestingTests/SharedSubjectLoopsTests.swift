import Lifeline
import LifelineAnalysis
import OpenCombineShim
import Testing

/// Two screens' models that each keep themselves alive through a sink on one service's subject:
/// two leaks, each its own loop (model → cancellables → AnyCancellable → Sink's closure →
/// model). The subject's conduits hold the subject (`parent`) and the subject holds its
/// conduits, so the two loops are one strongly connected component; each model's own loop is
/// still reported, as its own finding. (Found by seeding a strong `self` into the portfolio
/// app's watchlist: with one loop per component, the documented `PortfolioModel` loop was
/// reported as resolved.)
@Suite("Loops that share a subject", .serialized)
struct SharedSubjectLoopsTests {
    final class QuotesModel {
        private(set) var last = 0
        private var cancellables = Set<AnyCancellable>()

        init(_ prices: PassthroughSubject<Int, Never>) {
            prices.sink { price in self.last = price }.store(in: &cancellables)
        }
    }

    final class BadgeModel {
        private(set) var shown = 0
        private var cancellables = Set<AnyCancellable>()

        init(_ prices: PassthroughSubject<Int, Never>) {
            prices.sink { _ in self.shown += 1 }.store(in: &cancellables)
        }
    }

    @Test func twoModelsLoopingThroughOneSubjectAreTwoLeaks() throws {
        let trace = try Lifeline.record {
            let prices = PassthroughSubject<Int, Never>()
            _ = QuotesModel(prices)
            _ = BadgeModel(prices)
            prices.send(1)
        }
        let cycles = TraceAnalyzer().diagnose(trace).filter { $0.code == "retain-cycle" }
        #expect(cycles.count == 2, "\(cycles.map(\.message))")
        for model in ["QuotesModel", "BadgeModel"] {
            let cycle = cycles.first { $0.message.hasPrefix("Retain cycle: SharedSubjectLoopsTests.\(model).cancellables → Set<AnyCancellable>") }
            #expect(cycle?.severity == .error, "\(model): \(cycles.map(\.message))")
            // Each loop is the model's own: the other model is not on it.
            let other = model == "QuotesModel" ? "BadgeModel" : "QuotesModel"
            #expect(cycle?.message.components(separatedBy: " These objects")[0].contains(other) == false, "\(cycle?.message ?? "")")
        }
        #expect(Set(cycles.map(\.fingerprint)).count == 2)
    }
}
