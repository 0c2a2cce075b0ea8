import CGraphviz
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one door to libgraphviz: every call goes through here, one at a time.
///
/// Graphviz keeps global state (its parser, error buffer and layout scratch data) and crashes
/// when two threads render at once, so every render holds one process-wide lock from context
/// creation to the last free.
enum GraphvizLibrary {
    /// Held for the whole of each render.
    private static let lock = Mutex(())

    /// An output format Graphviz renders to.
    enum Format: String {
        case svg
        case png
    }

    /// Lays out DOT text and renders it, freeing every Graphviz resource before returning.
    ///
    /// - Parameters:
    ///   - dot: The DOT text.
    ///   - engine: The layout engine, or nil to choose one by the graph's size.
    ///   - format: The output format.
    ///   - appearance: The colours and background to draw with: an adaptive SVG gets a
    ///     transparent background (its style sheet is added afterwards), an adaptive PNG is
    ///     drawn light.
    /// - Returns: The rendered bytes.
    static func render(
        dot: String,
        engine: GraphvizLayoutEngine?,
        format: Format,
        appearance: GraphvizAppearance
    ) throws(GraphvizError) -> [UInt8] {
        try lock.withLock { _ throws(GraphvizError) -> [UInt8] in
            // AGMAX keeps messages out of stderr: Graphviz stores them for aglasterr instead.
            let previousLevel = agseterr(AGMAX)
            agreseterrors()
            defer {
                agreseterrors()
                agseterr(previousLevel)
            }
            guard let context = gvContext() else {
                throw .unavailable(message: lastError(or: "gvContext returned no context"))
            }
            defer { gvFreeContext(context) }
            guard let graph = agmemread(GraphvizInput.prepared(dot)) else {
                throw .invalidDOT(message: lastError(or: "the text contains no graph"))
            }
            defer { agclose(graph) }
            let baked = appearance == .adaptive && format == .png ? GraphvizAppearance.light : appearance
            if baked == .adaptive {
                lifeline_set_graph_attribute(graph, "bgcolor", "transparent")
            } else if let substitutions = baked.substitutions {
                apply(substitutions, to: graph)
            }
            if format == .png, attribute("size", of: graph).isEmpty {
                lifeline_set_graph_attribute(graph, "size", pngSizeLimit)
            }
            let engine = engine ?? .forNodeCount(Int(agnnodes(graph)))
            let layoutStatus = withRandomNumbersFromFreshProcess {
                gvLayout(context, graph, engine.rawValue)
            }
            guard layoutStatus == 0 else {
                throw .layoutFailed(engine: engine, message: lastError(or: "no message"))
            }
            defer { gvFreeLayout(context, graph) }
            var data: UnsafeMutablePointer<CChar>?
            var length: UInt32 = 0
            let status = gvRenderData(context, graph, format.rawValue, &data, &length)
            defer { if let data { gvFreeRenderData(data) } }
            guard status == 0, let data else {
                throw .renderFailed(format: format.rawValue, message: lastError(or: "no message"))
            }
            return Array(UnsafeRawBufferPointer(start: data, count: Int(length)))
        }
    }

    /// Recolours every colour attribute of `graph` by `substitutions`.
    private static func apply(_ substitutions: [(from: String, to: String)], to graph: UnsafeMutablePointer<Agraph_t>) {
        let strings = substitutions.map { (strdup($0.from), strdup($0.to)) }
        defer {
            for (from, to) in strings {
                free(from)
                free(to)
            }
        }
        let table = strings.map { lifeline_color_substitution(from: $0.0, to: $0.1) }
        table.withUnsafeBufferPointer { buffer in
            lifeline_apply_palette(graph, buffer.baseAddress, Int32(buffer.count))
        }
    }

    /// The `size` attribute (in inches) given to PNG renders that set none: 9,600 pixels a
    /// side at 96 dpi. Larger drawings shrink to fit, instead of Graphviz's cairo plugin printing
    /// "graph is too large for cairo-renderer bitmaps" to stderr and allocating gigabytes.
    private static let pngSizeLimit = "100,100"

    /// The value of a graph attribute, empty when unset.
    private static func attribute(_ name: String, of graph: UnsafeMutablePointer<Agraph_t>) -> String {
        lifeline_graph_attribute(graph, name).map { String(cString: $0) } ?? ""
    }

    /// Runs a layout with the C library's `rand()` in the state a fresh process starts in,
    /// then gives the caller's state back.
    ///
    /// sfdp draws from `rand()` before it seeds it, so without this its layout of a graph
    /// depends on what ran earlier in the process, and only the first render would match the
    /// `dot` command's. glibc's `rand()` shares `random()`'s state, which `initstate` swaps out
    /// and `setstate` restores.
    private static func withRandomNumbersFromFreshProcess<Result>(_ body: () -> Result) -> Result {
        #if canImport(Glibc)
        let stateSize = 128
        let state = UnsafeMutablePointer<CChar>.allocate(capacity: stateSize)
        defer { state.deallocate() }
        let callersState = initstate(1, state, stateSize)
        defer { if let callersState { setstate(callersState) } }
        return body()
        #else
        srand(1)
        return body()
        #endif
    }

    /// The last error Graphviz stored since the render began, trimmed, or the fallback when it
    /// stored none. Only called with the lock held.
    private static func lastError(or fallback: String) -> String {
        guard agerrors() >= Int32(AGERR.rawValue), let text = aglasterr() else { return fallback }
        defer { free(text) }
        let lines = String(decoding: UnsafeRawBufferPointer(start: text, count: strlen(text)),
                           as: UTF8.self)
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return lines.isEmpty ? fallback : lines.joined(separator: " ")
    }
}
