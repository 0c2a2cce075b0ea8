// swift-tools-version: 6.0

import PackageDescription

/// The sample stories in samples/: each folder is a runnable program (its main.swift) whose
/// story code, in the folder's Story/ subfolder, is also compiled into LifelineSamples so that
/// `lifeline samples` can run it in-process.
let sampleStories: [String] = [
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
        .library(name: "LifelineLog", targets: ["LifelineLog"]),
        .library(name: "LifelineAnalysis", targets: ["LifelineAnalysis"]),
        .library(name: "LifelineRender", targets: ["LifelineRender"]),
    ],
    dependencies: [
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
    ],
    targets: [
        .target(name: "CLifelineRuntime"),
        .target(name: "LifelineLog"),
        .target(name: "LifelineAnalysis", dependencies: ["LifelineLog"]),
        .target(name: "LifelineRender", dependencies: ["LifelineLog", "LifelineAnalysis"]),
        .target(
            name: "LifelineSamples",
            dependencies: [combine],
            path: "samples",
            exclude: sampleStories.map { "\($0)/main.swift" },
            sources: sampleStories.map { "\($0)/Story" } + ["Scenario"]
        ),
        .testTarget(name: "LifelineLogTests", dependencies: ["LifelineLog"]),
        .testTarget(
            name: "LifelineRenderTests",
            dependencies: ["LifelineRender", "LifelineLog", "LifelineAnalysis"],
            exclude: ["__Snapshots__"]
        ),
    ] + sampleStories.map { story in
        .executableTarget(
            name: story,
            dependencies: ["LifelineSamples"],
            path: "samples/\(story)",
            exclude: ["Story"],
            sources: ["main.swift"]
        )
    },
    swiftLanguageModes: [.v6]
)
