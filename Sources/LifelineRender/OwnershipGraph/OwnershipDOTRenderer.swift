import LifelineAnalysis
import LifelineLog

/// Draws one ownership snapshot as a Graphviz DOT graph: who holds whom, through which field,
/// and how strongly.
///
/// - Each object is a node styled by its kind (publisher or subject, subscription, subscriber,
///   AnyCancellable, user object), labelled with its name and id and, on a second line, its
///   reference counts with how many of each the graph draws (``ReferenceTally``), or
///   "deallocated"; a system library's object (Foundation, Dispatch) says instead that its
///   internals are not drawn.
/// - Each reference is an edge labelled with its field: solid when strong, dashed when weak,
///   dotted when unowned.
/// - The loops `retain-cycle` reports from this snapshot (``OwnershipGraph/retainCycles(in:)``:
///   by their verdict, not by the kinds of object on them) are drawn in the warning colour;
///   deallocated objects are greyed.
/// - A per-call snapshot checks only some objects and takes the others from earlier snapshots
///   (``TraceSnapshot/lastChecked``): each of those says which one (`as found after @96`), and
///   the caption says what that means, so a picture never passes an older look off as current.
///
/// The output is deterministic: nodes in id order, edges in the snapshot's order, and every
/// label escaped by ``DotGraph``.
///
/// ```swift
/// let snapshot = try #require(trace.snapshot(at: "stop"))
/// let dot = OwnershipDOTRenderer.render(snapshot, in: trace)
/// let svg = try GraphvizRenderer().svg(fromDOT: dot)
/// ```
public enum OwnershipDOTRenderer {
    /// The DOT text of `snapshot`.
    ///
    /// - Parameters:
    ///   - snapshot: One of `trace`'s snapshots.
    ///   - trace: The trace that declares the snapshot's objects.
    ///   - lifecycles: The trace's lifecycles, when the caller has them; rebuilt otherwise.
    public static func render(_ snapshot: TraceSnapshot, in trace: Trace, lifecycles: TraceLifecycles? = nil) -> String {
        graph(snapshot, in: trace, lifecycles: lifecycles).text
    }

    /// The DOT model of `snapshot`, to adjust before writing it out.
    ///
    /// - Parameters:
    ///   - snapshot: One of `trace`'s snapshots.
    ///   - trace: The trace that declares the snapshot's objects.
    ///   - lifecycles: The trace's lifecycles, when the caller has them; rebuilt otherwise.
    public static func graph(_ snapshot: TraceSnapshot, in trace: Trace, lifecycles: TraceLifecycles? = nil) -> DotGraph {
        let ownership = OwnershipGraph(snapshot: snapshot, trace: trace)
        let cycles = ownership.retainCycles(in: lifecycles ?? TraceLifecycles(trace))
        let cycleObjects = Set(cycles.flatMap(\.chainObjects))
        let cycleEdges = Set(cycles.flatMap(\.chain))
        var graph = DotGraph.ownershipGraph(name: "ownership")
        let takenEarlier = snapshot.nodes.contains { !snapshot.checked($0.id) }
            ? "\nan object marked \"as found after @N\" was not checked by this snapshot: it is drawn as the snapshot after event @N found it"
            : ""
        graph.graphAttributes.append(.label(
            "snapshot \(snapshot.index) \"\(Self.shown(snapshot.label))\", after event @\(snapshot.seq)\n"
                + "strong n (k drawn): the runtime counts n strong references, k of them drawn here;\n"
                + "the rest come from the stack, globals or objects not inspected. "
                + "weak and unowned count the program's references only"
                + takenEarlier
        ))
        graph.nodes = snapshot.nodes.map { node in
            DotNode.ownershipObject(
                id: dotID(node.id), label: label(node, in: ownership, trace: trace), kind: kind(node.kind),
                isDeallocated: !node.alive, isInCycle: cycleObjects.contains(node.id)
            )
        }
        graph.edges = snapshot.edges.map { edge in
            DotEdge.ownershipReference(
                from: dotID(edge.from), to: dotID(edge.to), field: Self.shown(edge.field), reference: reference(edge.ownership),
                isInCycle: cycleEdges.contains(edge)
            )
        }
        return graph
    }

    private static func dotID(_ id: TraceObjectID) -> String {
        "o\(id.rawValue)"
    }

    /// The most characters of a node's name or label: a node's title, type and id included,
    /// holds at most ``DisplayText/nameLimit``.
    private static let nameLimit = DisplayText.nameLimit / 2

    /// Program text (a label, a place, a field's name) as a graph shows it: escaped and cut to
    /// `limit` characters. `lifeline why` prints it in full.
    private static func shown(_ text: String, limit: Int = DisplayText.nameLimit) -> String {
        DisplayText(text, limit: limit).short
    }

    /// `ViewModel #5` or `Sink #7`, then where the program made its pipeline
    /// (`SearchViewModel.swift:24`) when known, then `strong 2 (1 drawn) · weak 1 (1 drawn)`,
    /// `deallocated` or `counts unknown` (``ReferenceTally``). The runtime's counts include
    /// references the graph cannot see (the stack, compiler temporaries, globals), so the label
    /// says how many of them it draws rather than presenting the counts as the graph's. A
    /// system library's object says instead that its internals are not drawn, and a global
    /// variable (`static Service.shared`) what it is. A node a
    /// per-call snapshot did not check says which earlier snapshot it is drawn as:
    /// `as found after @96`.
    private static func label(_ node: TraceSnapshot.Node, in graph: OwnershipGraph, trace: Trace) -> String {
        // A long name or label is cut before the id, so that the id stays.
        let title = node.name.map { "\(Self.shown($0, limit: Self.nameLimit)) \(node.id)" }
            ?? trace.object(node.id).map { object in
                object.label.map { "\(object.shortTypeName) \"\(Self.shown($0, limit: Self.nameLimit))\" \(object.id)" } ?? object.displayName
            }
            ?? "object \(node.id)"
        // Where the program made the object goes on a line of its own.
        let place = trace.object(node.id)?.placeName.map { "\n\(Self.shown($0))" } ?? ""
        let detail: String
        if !node.alive {
            detail = "deallocated"
        } else if node.kind == .global {
            detail = "global variable: lives as long as the program"
        } else if node.opaque {
            // The graph cannot explain a count that its internals add to (and the library's
            // threads change from moment to moment); `lifeline why` still gives it.
            detail = "internals not drawn"
        } else if let tallies = graph.tallies(of: node.id) {
            detail = tallies.map(\.summary).joined(separator: " · ")
        } else {
            detail = "counts unknown"
        }
        // The title is the program's text: escaped and cut, so that a newline in a label
        // cannot add a line to the node and a long one cannot widen it past a page.
        let found = graph.snapshot.lastChecked[node.id].map { "\nas found after @\($0)" } ?? ""
        return "\(Self.shown(title))\(place)\n\(detail)\(found)"
    }

    private static func kind(_ kind: TraceSnapshot.Node.Kind) -> OwnershipNodeKind {
        switch kind {
        case .publisher, .subject: return .publisher
        case .subscription: return .subscription
        case .subscriber: return .subscriber
        case .cancellable: return .cancellable
        case .root, .global, .object, .collection, .closureContext, .task: return .userObject
        }
    }

    private static func reference(_ ownership: TraceSnapshot.Ownership) -> OwnershipReference {
        switch ownership {
        case .strong: return .strong
        case .weak: return .weak
        case .unowned: return .unowned
        case .unownedUnsafe: return .unownedUnsafe
        }
    }
}
