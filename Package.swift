// swift-tools-version: 6.0

import PackageDescription

/// The sample stories in samples/: each folder is a runnable program (its main.swift) whose
/// story code, in the folder's Story/ subfolder, is also compiled into LifelineSamples so that
/// `lifeline samples` can run it in-process.
let sampleStories: [String] = [
    "forgotten-subscription",
    "stored-subscription",
    "returned-cancellable",
    "sink-and-assign",
    "additive-demand",
    "schedulers",
    "dropped-cancellable",
    "retain-cycle",
]

/// Combine on Apple platforms, OpenCombine everywhere else.
let combine: Target.Dependency = .product(
    name: "OpenCombineShim",
    package: "OpenCombine",
    condition: .when(platforms: [.linux, .android, .windows, .wasi])
)

let package = Package(
    name: "Lifeline",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Lifeline", targets: ["Lifeline"]),
        .library(name: "LifelineLog", targets: ["LifelineLog"]),
        .library(name: "LifelineAnalysis", targets: ["LifelineAnalysis"]),
        .library(name: "LifelineRender", targets: ["LifelineRender"]),
        .library(name: "LifelineTesting", targets: ["LifelineTesting"]),
        .executable(name: "lifeline", targets: ["lifeline"]),
        .library(name: "LifelineGraphviz", targets: ["LifelineGraphviz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
    ],
    targets: [
        // dlinfo and dladdr (the current queue's thread data) live in libdl before glibc 2.34.
        .target(name: "CLifelineRuntime", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "LifelineLog", dependencies: ["CLifelineRuntime"]),
        .target(name: "CLifelineHeap"),
        .target(name: "LifelineHeap", dependencies: ["CLifelineHeap"]),
        .target(name: "Lifeline", dependencies: ["LifelineLog", "LifelineHeap", "CLifelineRuntime", combine]),
        .target(name: "LifelineAnalysis", dependencies: ["LifelineLog"]),
        .target(name: "LifelineRender", dependencies: ["LifelineLog", "LifelineAnalysis"]),
        .target(name: "LifelineTesting", dependencies: ["Lifeline", "LifelineAnalysis", "LifelineLog"]),
        .executableTarget(
            name: "lifeline",
            dependencies: [
                "Lifeline", "LifelineLog", "LifelineAnalysis", "LifelineRender", "LifelineSamples", "LifelineGallery",
                "LifelineGraphviz",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "LifelineSamples",
            dependencies: [combine],
            path: "samples",
            exclude: sampleStories.map { "\($0)/main.swift" } + ["README.md", "Gallery"],
            sources: sampleStories.map { "\($0)/Story" } + ["Scenario"]
        ),
        .target(
            name: "LifelineGallery",
            dependencies: ["Lifeline", "LifelineLog", "LifelineAnalysis", "LifelineRender", "LifelineGraphviz", "LifelineSamples"],
            path: "samples/Gallery"
        ),
        .systemLibrary(
            name: "CGraphviz",
            path: "Sources/CGraphviz",
            pkgConfig: "libgvc",
            providers: [.apt(["libgraphviz-dev"])]
        ),
        .target(name: "LifelineGraphviz", dependencies: ["CGraphviz", "LifelineRender"]),
        // The slips seeded into the apps below, for `lifeline diff`'s mutation tests.
        .target(name: "AppMutations", path: "Tests/Apps/AppMutations"),
        .target(
            name: "NewsReaderApp", dependencies: [combine, "AppMutations"], path: "Tests/Apps/NewsReader",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "PortfolioApp", dependencies: [combine, "AppMutations"], path: "Tests/Apps/Portfolio",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "ChatClientApp", dependencies: [combine, "AppMutations"], path: "Tests/Apps/ChatClient",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "PhotoBackupApp", dependencies: [combine, "AppMutations"], path: "Tests/Apps/PhotoBackup",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "DownloadCenterApp", dependencies: [combine, "AppMutations"], path: "Tests/Apps/DownloadCenter",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .target(
            name: "AccountSettingsApp", dependencies: [combine, "AppMutations"], path: "Tests/Apps/AccountSettings",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The grocery list marks its pipelines with `.lifeline(_:)`, so that it can be recorded in
        // operator-only mode too: it imports Lifeline.
        .target(
            name: "GroceryListApp", dependencies: [combine, "Lifeline", "AppMutations"], path: "Tests/Apps/GroceryList",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "grocery-list",
            dependencies: ["Lifeline", "GroceryListApp", "AppMutations"],
            path: "Tests/Apps/grocery-list"
        ),
        .executableTarget(
            name: "account-settings",
            dependencies: ["Lifeline", "AccountSettingsApp", "AppMutations"],
            path: "Tests/Apps/account-settings"
        ),
        .executableTarget(
            name: "download-center",
            dependencies: ["Lifeline", "DownloadCenterApp", "AppMutations"],
            path: "Tests/Apps/download-center"
        ),
        .executableTarget(
            name: "photo-backup",
            dependencies: ["Lifeline", "PhotoBackupApp", "AppMutations"],
            path: "Tests/Apps/photo-backup"
        ),
        .executableTarget(
            name: "chat-client",
            dependencies: ["Lifeline", "ChatClientApp", "AppMutations"],
            path: "Tests/Apps/chat-client"
        ),
        .executableTarget(
            name: "portfolio",
            dependencies: ["Lifeline", "PortfolioApp", "AppMutations"],
            path: "Tests/Apps/portfolio"
        ),
        .executableTarget(
            name: "news-reader",
            dependencies: ["Lifeline", "NewsReaderApp", "AppMutations"],
            path: "Tests/Apps/news-reader"
        ),
        .executableTarget(
            name: "lifeline-fuzz",
            dependencies: [
                "LifelineLog", "LifelineAnalysis", "LifelineRender",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Fuzz/Sources"
        ),
        .executableTarget(
            name: "lifeline-benchmarks",
            dependencies: [
                "Lifeline", "LifelineHeap", "LifelineLog", "CLifelineRuntime", combine,
                "NewsReaderApp", "PortfolioApp", "ChatClientApp", "PhotoBackupApp", "DownloadCenterApp", "AccountSettingsApp",
            ],
            path: "Benchmarks/LifelineBenchmarks"
        ),
        .testTarget(name: "LifelineLogTests", dependencies: ["LifelineLog"]),
        .testTarget(name: "LifelineHeapTests", dependencies: ["LifelineHeap", combine]),
        .executableTarget(
            name: "lifeline-recording-child",
            dependencies: ["Lifeline", combine],
            path: "Tests/RecordingChild"
        ),
        .executableTarget(
            name: "lifeline-hanging-child",
            dependencies: ["Lifeline", combine],
            path: "Tests/HangingChild"
        ),
        .testTarget(
            name: "LifelineTests",
            dependencies: ["Lifeline", "LifelineLog", "LifelineAnalysis", "CLifelineRuntime", "lifeline-recording-child", combine]
        ),
        .testTarget(
            name: "LifelineSamplesTests",
            dependencies: ["LifelineSamples", "Lifeline", "LifelineLog", "LifelineAnalysis", combine]
        ),
        .testTarget(name: "LifelineGraphvizTests", dependencies: ["LifelineRender", "LifelineGraphviz"]),
        .testTarget(name: "LifelineAnalysisTests", dependencies: ["LifelineAnalysis", "LifelineLog"]),
        .testTarget(
            name: "LifelineCommandTests",
            dependencies: ["lifeline", "lifeline-hanging-child", "Lifeline", "LifelineLog", "LifelineSamples", combine]
        ),
        .testTarget(
            name: "LifelineTestingTests",
            dependencies: [
                "LifelineTesting", "Lifeline", "LifelineAnalysis", "LifelineLog", "LifelineRender", "LifelineSamples",
                "NewsReaderApp", "PortfolioApp", "ChatClientApp", "PhotoBackupApp", "DownloadCenterApp", "AccountSettingsApp",
                "GroceryListApp", "AppMutations",
                combine,
            ]
        ),
        .testTarget(
            name: "LifelineRenderTests",
            dependencies: ["LifelineRender", "LifelineLog", "LifelineAnalysis", "LifelineGraphviz"],
            exclude: ["__Snapshots__", "Fixtures"]
        ),
    ] + sampleStories.map { story in
        .executableTarget(
            name: story,
            dependencies: ["Lifeline", "LifelineSamples"],
            path: "samples/\(story)",
            exclude: ["Story"],
            sources: ["main.swift"]
        )
    },
    swiftLanguageModes: [.v6]
)

// `LIFELINE_DOCS=1 swift package generate-documentation --target Lifeline` builds the DocC
// catalog with swift-docc-plugin. Without the variable nothing extra is resolved: `make docs`
// (scripts/docs.sh) drives the toolchain's docc directly, and is what `make test` checks.
if Context.environment["LIFELINE_DOCS"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
