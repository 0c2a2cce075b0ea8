// swift-tools-version: 6.0

import PackageDescription

/// Benchmarks live in their own package so that users of Lifeline never resolve or build
/// them. Run with `swift run -c release --package-path Benchmarks lifeline-benchmarks`.
let package = Package(
    name: "LifelineBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
    ],
    targets: [
        .executableTarget(
            name: "lifeline-benchmarks",
            dependencies: [
                .product(name: "Lifeline", package: "main"),
                .product(name: "LifelineLog", package: "main"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            path: "Sources/LifelineBenchmarks"
        ),
    ],
    swiftLanguageModes: [.v6]
)
