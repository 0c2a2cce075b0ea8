import Foundation
import Testing

/// `lifeline render --theme`: light and dark bake a palette and a background into every
/// picture format, auto is the adaptive picture, and the text formats refuse the option.
@Suite struct ThemeOptionTests {
    static let trace = RenderCommandTests.fixtures.appendingPathComponent("retain-cycle.jsonl").path

    @Test(arguments: ["svg", "marbles", "graph-svg"]) func eachThemeOfEachSVG(_ format: String) throws {
        var pictures: [String: String] = [:]
        for theme in ["auto", "light", "dark"] {
            let run = try LifelineExecutable.run(["render", Self.trace, "--format", format, "--theme", theme])
            #expect(run.status == 0, "\(run.standardError)")
            pictures[theme] = run.standardOutputText
        }
        let byDefault = try LifelineExecutable.run(["render", Self.trace, "--format", format]).standardOutputText
        #expect(pictures["auto"] == byDefault, "auto is the default")
        #expect(pictures["auto"]?.contains("prefers-color-scheme") == true)
        for theme in ["light", "dark"] {
            #expect(pictures[theme]?.contains("prefers-color-scheme") == false, "\(theme) depends on a media query")
        }
        #expect(pictures["dark"]?.contains("#0d1117") == true, "no dark background")
        #expect(pictures["light"] != pictures["dark"])
    }

    @Test func graphPNGDrawsTheChosenPalette() throws {
        let folder = try LifelineExecutable.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var images: [String: Data] = [:]
        for theme in ["auto", "light", "dark"] {
            let file = folder.appendingPathComponent("\(theme).png")
            let run = try LifelineExecutable.run(["render", Self.trace, "--format", "graph-png", "--theme", theme, "-o", file.path])
            #expect(run.status == 0, "\(run.standardError)")
            images[theme] = try Data(contentsOf: file)
        }
        #expect(images["auto"] == images["light"], "a PNG cannot adapt: auto is light")
        #expect(images["dark"] != images["light"])
    }

    @Test func aTextFormatRefusesATheme() throws {
        let run = try LifelineExecutable.run(["render", Self.trace, "--format", "mermaid", "--theme", "dark"])
        #expect(run.status == 64)
        #expect(run.standardError.contains("--theme applies to the pictures only"))
    }
}
