/// The elements of one SVG, collected in drawing layers and written out as a
/// self-contained document.
///
/// Coordinates are whole pixels, so the output never depends on how a floating-point
/// number is printed.
struct SVGCanvas {
    /// Drawing layers, back to front.
    enum Layer: Int, CaseIterable {
        case background, lines, bars, arrows, labels, foreground
    }

    private var layers: [[String]] = Array(repeating: [], count: Layer.allCases.count)

    /// Adds raw markup (already escaped) to a layer.
    mutating func add(_ markup: String, to layer: Layer) {
        layers[layer.rawValue].append(markup)
    }

    mutating func line(_ x1: Int, _ y1: Int, _ x2: Int, _ y2: Int, _ className: String, to layer: Layer = .lines) {
        add("<line x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2)\" y2=\"\(y2)\" class=\"\(className)\"/>", to: layer)
    }

    mutating func rect(_ x: Int, _ y: Int, _ width: Int, _ height: Int, _ className: String, radius: Int = 0, to layer: Layer) {
        let corner = radius > 0 ? " rx=\"\(radius)\"" : ""
        add("<rect x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(height)\"\(corner) class=\"\(className)\"/>", to: layer)
    }

    mutating func polygon(_ points: [(Int, Int)], _ className: String, to layer: Layer = .arrows) {
        let list = points.map { "\($0.0),\($0.1)" }.joined(separator: " ")
        add("<polygon points=\"\(list)\" class=\"\(className)\"/>", to: layer)
    }

    mutating func path(_ data: String, _ className: String, to layer: Layer = .arrows) {
        add("<path d=\"\(data)\" fill=\"none\" class=\"\(className)\"/>", to: layer)
    }

    mutating func circle(_ x: Int, _ y: Int, _ radius: Int, _ className: String, title: String? = nil, to layer: Layer) {
        let tooltip = title.map { "<title>\(XMLText.escape(DisplayText.clean($0)))</title>" } ?? ""
        if tooltip.isEmpty {
            add("<circle cx=\"\(x)\" cy=\"\(y)\" r=\"\(radius)\" class=\"\(className)\"/>", to: layer)
        } else {
            add("<circle cx=\"\(x)\" cy=\"\(y)\" r=\"\(radius)\" class=\"\(className)\">\(tooltip)</circle>", to: layer)
        }
    }

    /// Text, cleaned and escaped. A shortened text carries its full version in a `<title>`.
    mutating func text(_ text: DisplayText, x: Int, y: Int, _ className: String, anchor: TextAnchor = .start, to layer: Layer = .labels) {
        let tooltip = text.isShortened ? "<title>\(XMLText.escape(text.full))</title>" : ""
        add("<text x=\"\(x)\" y=\"\(y)\" class=\"\(className)\"\(anchor.attribute)>\(tooltip)\(XMLText.escape(text.short))</text>", to: layer)
    }

    /// Where a text's `x` is.
    enum TextAnchor {
        case start, middle, end

        var attribute: String {
            switch self {
            case .start: return ""
            case .middle: return " text-anchor=\"middle\""
            case .end: return " text-anchor=\"end\""
            }
        }
    }

    /// The whole document.
    ///
    /// - Parameters:
    ///   - width: The width of the view box.
    ///   - height: The height of the view box.
    ///   - root: The class on the root element that scopes the style sheet.
    ///   - title: The accessible name of the image.
    ///   - appearance: Which colours to carry. A light or dark document paints its own
    ///     background, so that it reads the same on any page and in any viewer; an adaptive one
    ///     is transparent, and takes the page's.
    func document(width: Int, height: Int, root: String, title: String, appearance: SVGAppearance) -> String {
        let name = XMLText.escape(DisplayText(title, limit: 200).short)
        var output = """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(width) \(height)" width="\(width)" height="\(height)" class="\(root)" role="img" aria-label="\(name)">
            <title>\(name)</title>
            \(SVGStyleSheet.element(root: root, appearance: appearance))

            """
        if appearance != .adaptive {
            output += "<rect width=\"\(width)\" height=\"\(height)\" class=\"bg\"/>\n"
        }
        for layer in layers {
            for element in layer {
                output += element
                output += "\n"
            }
        }
        return output + "</svg>\n"
    }
}
