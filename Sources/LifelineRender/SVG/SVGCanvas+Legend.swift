extension SVGCanvas {
    /// Draws the thread and queue colours, wrapping at `width`; nothing when `contexts` is
    /// empty (a picture with nothing drawn in a thread's colour).
    ///
    /// - Parameters:
    ///   - contexts: The legend entries.
    ///   - y: The top of the legend.
    ///   - left: The left edge.
    ///   - width: Where entries wrap to the next line (at least 400).
    ///   - swatch: The class prefix of an entry's swatch (`f` solid, `a` tinted).
    ///   - radius: The swatch's corner radius.
    /// - Returns: The legend's bottom and right edges.
    mutating func legend(_ contexts: [ExecutionContext], at y: Int, left: Int, width: Int, swatch: String, radius: Int) -> (bottom: Int, right: Int) {
        guard !contexts.isEmpty else { return (y, left) }
        let indent = left + 110
        var x = indent, row = y, right = x
        text(DisplayText("Threads and queues:", limit: 40), x: left, y: row + 10, "tm")
        for context in contexts {
            let name = DisplayText(context.name, limit: 40)
            let itemWidth = 18 + DisplayText.estimatedWidth(of: name.short, fontSize: 12) + 16
            if x + itemWidth > max(width, 400), x > indent {
                x = indent
                row += 20
            }
            rect(x, row, 12, 12, "\(swatch)\(context.index % SVGStyleSheet.contextColourCount)", radius: radius, to: .foreground)
            text(name, x: x + 18, y: row + 10, "tx", to: .foreground)
            x += itemWidth
            right = max(right, x)
        }
        return (row + 14, right)
    }
}
