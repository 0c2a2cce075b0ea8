import Testing
@testable import Lifeline

/// The short type names the log records for people.
@Suite struct TypeNameTests {
    @Test func combinesNamespacesAndTheModuleAreDropped() {
        #expect(TypeName.shortened("OpenCombine.Publishers.Map<Swift.Int, Swift.Int>.(private).Inner<Swift.Int>") == "Map.Inner")
        #expect(TypeName.shortened("OpenCombine.Subscribers.Sink<Swift.Int, Swift.Never>") == "Sink")
        #expect(TypeName.shortened("MyApp.SearchModel") == "SearchModel")
    }

    /// OpenCombine extends other modules' types inside an `OCombine` namespace; the code that
    /// made them wrote `Result.Publisher` or `NotificationCenter.Publisher`.
    @Test func openCombinesExtensionNamespaceIsDropped() {
        let result = "(extension in OpenCombine):Swift.Result<MyApp.Strength, Swift.Error>.OCombine.Publisher"
        #expect(TypeName.shortened(result) == "Result.Publisher")
        #expect(TypeName.shortened("(extension in OpenCombineFoundation):FoundationEssentials.NotificationCenter.OCombine.Publisher")
            == "NotificationCenter.Publisher")
        #expect(TypeName.shortened("(extension in OpenCombine):Swift.Result<Swift.Int, Swift.Error>.OCombine.(private).Inner<MyApp.Sink>")
            == "Result.Inner")
    }
}
