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
    ///   - transparentBackground: Whether to override the graph's background with transparency.
    /// - Returns: The rendered bytes.
    static func render(
        dot: String,
        engine: GraphvizLayoutEngine?,
        format: Format,
        transparentBackground: Bool
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
            guard let graph = agmemread(dot) else {
                throw .invalidDOT(message: lastError(or: "the text contains no graph"))
            }
            defer { agclose(graph) }
            if transparentBackground {
                lifeline_set_graph_attribute(graph, "bgcolor", "transparent")
            }
            let engine = engine ?? .forNodeCount(Int(agnnodes(graph)))
            guard gvLayout(context, graph, engine.rawValue) == 0 else {
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
