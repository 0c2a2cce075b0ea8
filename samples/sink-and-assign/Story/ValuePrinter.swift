/// The seed's `ValuePrinter`: prints its value whenever the value changes, so `assign(to:on:)`
/// has a visible target.
final class ValuePrinter<Value> {
    private let console: SampleConsole

    var value: Value {
        didSet { console.print("ValuePrinter.value = \(value)") }
    }

    init(_ value: Value, console: SampleConsole) {
        self.value = value
        self.console = console
    }
}
