@testable import LifelineRender
import Testing

@Suite("DOT writer")
struct DotGraphTests {
    @Test("writes statements in order, quoting every id and value")
    func writesStatementsInOrder() {
        let graph = DotGraph(
            name: "g",
            graphAttributes: [.rankDirection(.leftToRight)],
            nodeDefaults: [.fontSize(12)],
            edgeDefaults: [.color(.ink)],
            nodes: [
                DotNode(id: "b", attributes: [.label("B"), .shape(.box)]),
                DotNode(id: "a"),
            ],
            edges: [
                DotEdge(from: "a", to: "b", attributes: [.style([.dashed, .bold])]),
                DotEdge(from: "b", to: "a"),
            ]
        )
        #expect(graph.text == """
            digraph "g" {
              graph [rankdir="LR"];
              node [fontsize="12.0"];
              edge [color="#1f2328"];
              "b" [label="B", shape="box"];
              "a" [label="a"];
              "a" -> "b" [style="dashed,bold"];
              "b" -> "a";
            }

            """)
    }

    @Test("escapes quotes, backslashes, ampersands, line breaks and control characters")
    func escapesHostileText() {
        let node = DotNode(id: "x\"y", attributes: [
            .label("say \"hi\"\\ \\N \\l &amp; <b>\r\nnext\rlast\n\ttab\u{0}\u{7}\u{1B}\u{7F}\u{85}\u{FFFE}😀é"),
        ])
        let text = DotGraph(name: "g", nodes: [node]).text
        let expected = #"  "x\"y" [label="say \"hi\"\\ \\N \\l &amp;amp; <b>\nnext\nlast\n tab😀é"];"#
        #expect(text.split(separator: "\n").map(String.init).contains(expected))
    }

    @Test("ownership nodes are styled by kind and state")
    func ownershipNodes() {
        let live = DotNode.ownershipObject(id: "o1", label: "Sink", kind: .subscriber)
        #expect(live.attributes == [
            .label("Sink"), .shape(.ellipse), .fillColor(.purpleTint), .color(.purple),
            .style([.filled]),
        ])
        let dead = DotNode.ownershipObject(
            id: "o2", label: "Subject", kind: .publisher, isDeallocated: true)
        #expect(dead.attributes == [
            .label("Subject"), .shape(.box), .fillColor(.greyTint), .fontColor(.grey),
            .color(.grey), .style([.rounded, .filled, .dashed]),
        ])
        let cyclic = DotNode.ownershipObject(
            id: "o3", label: "AnyCancellable", kind: .cancellable, isInCycle: true)
        #expect(cyclic.attributes == [
            .label("AnyCancellable"), .shape(.hexagon), .fillColor(.orangeTint), .color(.red),
            .penWidth(2), .style([.filled]),
        ])
    }

    @Test("ownership edges are solid, dashed or dotted by reference, red in a cycle")
    func ownershipEdges() {
        let styles = OwnershipReference.allCases.map { reference in
            DotEdge.ownershipReference(from: "a", to: "b", field: "f", reference: reference)
                .attributes
        }
        #expect(styles == [
            [.label("f"), .style([.solid])],
            [.label("f"), .style([.dashed])],
            [.label("f"), .style([.dotted])],
            [.label("f"), .style([.dotted, .bold])],
        ])
        let cyclic = DotEdge.ownershipReference(
            from: "a", to: "b", field: "cancellables", reference: .strong, isInCycle: true)
        #expect(cyclic.attributes == [
            .label("cancellables"), .style([.solid]), .color(.red), .fontColor(.red), .penWidth(2),
        ])
    }

    @Test("palette light values are distinct, so each names one dark value")
    func paletteIsDistinct() {
        let light = DotColor.allCases.map(\.lightHex)
        #expect(Set(light).count == light.count)
        #expect(light.allSatisfy { $0.count == 7 && $0 == $0.lowercased() && $0.hasPrefix("#") })
    }

    @Test("unconnected parts stack: every node of a part ranks above every node of the next, drawn invisibly")
    func unconnectedPartsStack() {
        var graph = DotGraph(name: "g")
        graph.nodes = ["a", "b", "c", "d", "stack 4"].map { DotNode(id: $0) }
            + (1...9).map { DotNode(id: "e\($0)") } + (1...9).map { DotNode(id: "f\($0)") }
        graph.edges = [DotEdge(from: "b", to: "a"), DotEdge(from: "d", to: "stack 4")]
            + (1...8).map { DotEdge(from: "e\($0)", to: "e\($0 + 1)") } + (1...8).map { DotEdge(from: "f\($0)", to: "f\($0 + 1)") }
        #expect(graph.unconnectedParts == [["a", "b"], ["c"], ["d", "stack 4"], (1...9).map { "e\($0)" }, (1...9).map { "f\($0)" }])

        let stacked = graph.stackingUnconnectedParts
        let hidden: [DotAttribute] = [.style([.invisible]), .weight(0)]
        let added = Array(stacked.edges.dropFirst(graph.edges.count))
        // Small parts are joined straight, node to node.
        #expect(added.prefix(6) == [
            DotEdge(from: "a", to: "c", attributes: hidden), DotEdge(from: "b", to: "c", attributes: hidden),
            DotEdge(from: "c", to: "d", attributes: hidden), DotEdge(from: "c", to: "stack 4", attributes: hidden),
            DotEdge(from: "d", to: "e1", attributes: hidden), DotEdge(from: "d", to: "e2", attributes: hidden),
        ])
        // Two parts of 9 go through an invisible point, whose id no node has.
        let spacer = stacked.nodes.last!
        #expect(spacer.id == "stack 4'")
        #expect(stacked.nodes.count == graph.nodes.count + 1)
        #expect(added.suffix(18) == (1...9).map { DotEdge(from: "e\($0)", to: spacer.id, attributes: hidden) }
            + (1...9).map { DotEdge(from: spacer.id, to: "f\($0)", attributes: hidden) })
        #expect(added.count == 2 + 2 + 18 + 18)
        #expect(stacked.stackingUnconnectedParts.edges.count == stacked.edges.count, "a stacked graph is one part")
    }
}
