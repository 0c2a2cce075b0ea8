/// An attribute of a graph, node or edge, with a typed value.
///
/// The set is deliberately small: the attributes Lifeline's graphs use. There is no `URL`,
/// `href` or HTML label, so no user text can turn into a link or markup.
public enum DotAttribute: Hashable, Sendable {
    /// The text shown; line breaks in it become line breaks in the picture.
    case label(String)
    /// A node's outline.
    case shape(DotShape)
    /// How an outline or edge is drawn; several styles combine.
    case style([DotStyle])
    /// The colour of outlines, edges and arrowheads.
    case color(DotColor)
    /// The colour inside a node with the ``DotStyle/filled`` style.
    case fillColor(DotColor)
    /// The colour of label text.
    case fontColor(DotColor)
    /// The font family list, for example `"Helvetica,Arial,sans-serif"`.
    case fontName(String)
    /// The font size in points.
    case fontSize(Double)
    /// The width of outlines and edges in points.
    case penWidth(Double)
    /// The direction a graph is laid out in (graph attribute).
    case rankDirection(DotRankDirection)
    /// How strongly an edge pulls its two ends into line (edge attribute); 0 leaves them where
    /// the rest of the graph puts them, and only orders their ranks.
    case weight(Int)
    /// The largest the drawing may be, in inches, `width,height` (graph attribute): a larger
    /// layout is scaled down to fit.
    case size(width: Double, height: Double)

    /// The attribute's DOT name.
    var name: String {
        switch self {
        case .label: "label"
        case .shape: "shape"
        case .style: "style"
        case .color: "color"
        case .fillColor: "fillcolor"
        case .fontColor: "fontcolor"
        case .fontName: "fontname"
        case .fontSize: "fontsize"
        case .penWidth: "penwidth"
        case .rankDirection: "rankdir"
        case .weight: "weight"
        case .size: "size"
        }
    }

    /// The attribute's value, written as a quoted DOT string.
    var value: DotQuotedString {
        switch self {
        case .label(let text), .fontName(let text): DotQuotedString(text)
        case .shape(let shape): DotQuotedString(shape.rawValue)
        case .style(let styles): DotQuotedString(styles.map(\.rawValue).joined(separator: ","))
        case .color(let color), .fillColor(let color), .fontColor(let color):
            DotQuotedString(color.lightHex)
        case .fontSize(let points), .penWidth(let points): DotQuotedString("\(points)")
        case .weight(let weight): DotQuotedString("\(weight)")
        case .rankDirection(let direction): DotQuotedString(direction.rawValue)
        case .size(let width, let height): DotQuotedString("\(width),\(height)")
        }
    }

    /// A bracketed attribute list, `[name="value", …]`, in the given order.
    static func list(_ attributes: [DotAttribute]) -> String {
        "[" + attributes.map { "\($0.name)=\($0.value)" }.joined(separator: ", ") + "]"
    }
}
