// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Collage",
    products: [
        .library(name: "CollageCore", targets: ["CollageCore"]),
        .executable(name: "collage", targets: ["collage"]),
    ],
    targets: [
        // Pure Swift: documents, geometry, templates, edits, undo. Foundation only.
        .target(name: "CollageCore"),
        // The `collage` command: argument parsing and subcommands only.
        .executableTarget(name: "collage", dependencies: ["CollageCore"]),
        .testTarget(name: "CollageCoreTests", dependencies: ["CollageCore"]),
        // Runs the built `collage` binary as a user would; depends on it so it is built first.
        .testTarget(name: "CollageCLITests", dependencies: ["collage", "CollageCore"]),
    ],
    swiftLanguageModes: [.v6]
)
