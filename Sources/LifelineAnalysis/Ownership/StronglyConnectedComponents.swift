import LifelineLog

/// The strongly connected components of a directed graph, found with an iterative version of
/// Tarjan's algorithm (no recursion, so a long chain of objects cannot overflow the stack).
///
/// The result is deterministic: nodes are visited in ascending id order and successors in the
/// order given, each component is sorted by id, and components are ordered by their smallest
/// id.
struct StronglyConnectedComponents {
    /// Every component, including single nodes.
    let components: [[TraceObjectID]]

    /// Finds the components of the graph whose nodes are `nodes` and whose edges lead from a
    /// node to each of `successors[node]`.
    init(nodes: [TraceObjectID], successors: [TraceObjectID: [TraceObjectID]]) {
        var index: [TraceObjectID: Int] = [:]
        var lowLink: [TraceObjectID: Int] = [:]
        var onStack = Set<TraceObjectID>()
        var stack: [TraceObjectID] = []
        var found: [[TraceObjectID]] = []
        var nextIndex = 0

        for start in nodes.sorted() where index[start] == nil {
            // Each frame is a node and the position of the next successor to look at.
            var frames: [(node: TraceObjectID, next: Int)] = [(start, 0)]
            index[start] = nextIndex
            lowLink[start] = nextIndex
            nextIndex += 1
            stack.append(start)
            onStack.insert(start)
            while let frame = frames.last {
                let outgoing = successors[frame.node, default: []]
                if frame.next < outgoing.count {
                    frames[frames.count - 1].next += 1
                    let successor = outgoing[frame.next]
                    if index[successor] == nil {
                        index[successor] = nextIndex
                        lowLink[successor] = nextIndex
                        nextIndex += 1
                        stack.append(successor)
                        onStack.insert(successor)
                        frames.append((successor, 0))
                    } else if onStack.contains(successor) {
                        lowLink[frame.node] = min(lowLink[frame.node]!, index[successor]!)
                    }
                    continue
                }
                frames.removeLast()
                if let parent = frames.last {
                    lowLink[parent.node] = min(lowLink[parent.node]!, lowLink[frame.node]!)
                }
                if lowLink[frame.node] == index[frame.node] {
                    var component: [TraceObjectID] = []
                    while let member = stack.popLast() {
                        onStack.remove(member)
                        component.append(member)
                        if member == frame.node { break }
                    }
                    found.append(component.sorted())
                }
            }
        }
        components = found.sorted { $0[0] < $1[0] }
    }
}
