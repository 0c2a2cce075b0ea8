/// One price of one symbol, as the feed sends it.
struct Quote: Equatable, CustomStringConvertible {
    let symbol: String
    let price: Int

    var description: String { "\(symbol) \(price)" }
}
