import OpenCombineShim

/// A price service that lives as long as the app and owns the subject its prices come from, and
/// a screen that shows one symbol's quote while it is open, as an app writes them: the screen
/// makes a model when it opens and lets it go when it closes. The model's `sink` captures
/// `self` strongly (the bug: the service's subject keeps the subscription, the subscription the
/// sink, the sink the model, so every model the screen ever made stays subscribed), or, fixed,
/// weakly, so that a closed screen's model goes, and its cancellable with it.
final class PriceService {
    let prices = CurrentValueSubject<[String: Double], Never>([:])

    func publish(_ symbol: String, at price: Double) {
        prices.value[symbol] = price
    }
}

final class QuoteModel {
    private(set) var quote = "—"
    private var cancellables = Set<AnyCancellable>()

    init(symbol: String, service: PriceService, capturingWeakly: Bool) {
        let quotes = service.prices.compactMap { $0[symbol] }.map { String(format: "%@ %.2f", symbol, $0) }
        if capturingWeakly {
            quotes.sink { [weak self] quote in self?.quote = quote }.store(in: &cancellables)
        } else {
            quotes.sink { quote in self.quote = quote }.store(in: &cancellables)
        }
    }
}

final class QuoteScreen {
    private let service: PriceService
    private let capturingWeakly: Bool
    private(set) var model: QuoteModel?

    init(service: PriceService, capturingWeakly: Bool) {
        self.service = service
        self.capturingWeakly = capturingWeakly
    }

    func open(_ symbol: String) {
        model = QuoteModel(symbol: symbol, service: service, capturingWeakly: capturingWeakly)
    }

    func close() {
        model = nil
    }
}
