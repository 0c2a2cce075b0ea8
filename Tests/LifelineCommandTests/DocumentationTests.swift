import Foundation
import Lifeline
import Testing

/// The DocC catalog and the README say what the code does: every recording option, every
/// diagnosis with the fix docs/Diagnoses.md gives, and the gallery's current pictures.
/// (`scripts/docs.sh`, which `make test` runs, checks that the catalog builds without a
/// warning.)
@Suite struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let catalog = root.appendingPathComponent("Sources/Lifeline/Lifeline.docc")

    static func text(_ path: String, in folder: URL = root) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func everyRecordingOptionIsDocumentedInTheREADMEAndTheCatalog() throws {
        let names = Mirror(reflecting: RecordingOptions()).children.compactMap(\.label)
        #expect(names.count >= 4)
        let readme = try Self.text("README.md")
        let article = try Self.text("ChoosingRecordingOptions.md", in: Self.catalog)
        for name in names {
            #expect(readme.contains("| `\(name)` |"), "README's table of recording options lacks \(name)")
            #expect(article.contains("\n## \(name)\n"), "ChoosingRecordingOptions.md has no section on \(name)")
            #expect(article.contains("| `\(name)` |"), "ChoosingRecordingOptions.md's table lacks \(name)")
        }
    }

    @Test func everyDiagnosisHasItsFixInTheCatalog() throws {
        let source = try Self.text("docs/Diagnoses.md")
        let fixes = try #require(source.components(separatedBy: "### Fixes").dropFirst().first)
        let rows = fixes.split(separator: "\n").prefix { !$0.hasPrefix("## ") }
            .compactMap { $0.firstMatch(of: /^\| `([a-z-]+)` \| (.+) \|$/) }
        #expect(rows.count >= 13, "docs/Diagnoses.md's fix table was not found")
        let article = try Self.text("Diagnoses.md", in: Self.catalog)
        for row in rows {
            let code = String(row.1), fix = String(row.2)
            let section = article.components(separatedBy: "\n## `\(code)`\n").dropFirst().first?
                .components(separatedBy: "\n## ").first
            #expect(section?.contains("**Fix:** \(fix)") == true, "Diagnoses.md (DocC) does not give \(code)'s fix as docs/Diagnoses.md does")
        }
    }

    /// Every picture the README and the gallery page show is a light file with its dark pair,
    /// and both exist.
    @Test(arguments: ["README.md", "output/README.md"]) func everyPictureIsALightAndDarkPairThatExists(_ page: String) throws {
        // The pictures the page shows, not the examples in its code blocks.
        let text = try Self.text(page).replacing(/```[a-z]*\n(?:.*\n)*?```\n/, with: "")
        let folder = Self.root.appendingPathComponent(page).deletingLastPathComponent()
        let pictures = text.matches(of: /<picture>\n  <source media="\(prefers-color-scheme: dark\)" srcset="([^"]+)">\n  <img src="([^"]+)"/)
        #expect(!pictures.isEmpty, "\(page) shows no <picture>")
        #expect(text.components(separatedBy: "<img ").count - 1 == pictures.count, "an <img> outside a light and dark <picture>")
        for picture in pictures {
            let dark = String(picture.1), light = String(picture.2)
            #expect(dark == light.replacingOccurrences(of: ".svg", with: "~dark.svg"), "\(dark) is not \(light)'s DocC-style pair")
            for path in [light, dark] {
                #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path), "\(page) shows \(path), which does not exist")
            }
        }
    }

    /// The catalog embeds copies of the gallery's pictures, which `scripts/docs-pictures.sh`
    /// makes (`make demo` and `make docs` run it).
    @Test func theCatalogsPicturesAreTheGallerys() throws {
        let resources = Self.catalog.appendingPathComponent("Resources")
        let files = try FileManager.default.contentsOfDirectory(atPath: resources.path).filter { $0.hasSuffix(".svg") }.sorted()
        #expect(files.count == 6, "three pictures, each light and dark: \(files)")
        for file in files {
            let match = try #require(file.firstMatch(of: /^(retain-cycle)-(sequence|marbles|graph)(~dark)?\.svg$/), "\(file)")
            let gallery = Self.root.appendingPathComponent("output/\(match.1)/\(match.2)\(match.3 ?? "").svg")
            #expect(try Data(contentsOf: resources.appendingPathComponent(file)) == (try Data(contentsOf: gallery)),
                    "\(file) is not the gallery's \(gallery.lastPathComponent): run make demo")
            if match.3 == nil {
                #expect(files.contains(file.replacingOccurrences(of: ".svg", with: "~dark.svg")), "\(file) has no dark pair")
            }
        }
        let article = try Self.text("ARetainCycleInPictures.md", in: Self.catalog)
        for picture in ["sequence", "marbles", "graph"] {
            #expect(article.contains("](retain-cycle-\(picture))"), "the article does not embed the \(picture) picture")
        }
    }
}
