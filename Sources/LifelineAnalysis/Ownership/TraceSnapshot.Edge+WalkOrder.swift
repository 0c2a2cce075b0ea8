import LifelineLog

extension TraceSnapshot.Edge {
    /// The field without the positions of the elements it passes through: `[]` for `[2]`,
    /// `downstreams.many.[]` for `downstreams.many.[0]`. A set's or dictionary's elements lie
    /// in an order its hashing picks anew in each process, so a position names nothing that
    /// stays from run to run.
    var fieldWithoutPositions: String {
        var field = ""
        var inBrackets = false
        for character in self.field {
            if character == "[" { inBrackets = true } else if character == "]" { inBrackets = false }
            if !(inBrackets && character.isNumber) { field.append(character) }
        }
        return field
    }

    /// The order in which searches through a snapshot follow references: by field without
    /// element positions, then by target id (objects are numbered in the order the program made
    /// them), so that the same program gives the same chains and loops in every run, whatever
    /// order a set's storage put its elements in.
    static func walkOrder(_ lhs: TraceSnapshot.Edge, _ rhs: TraceSnapshot.Edge) -> Bool {
        (lhs.fieldWithoutPositions, lhs.to, lhs.field) < (rhs.fieldWithoutPositions, rhs.to, rhs.field)
    }
}
