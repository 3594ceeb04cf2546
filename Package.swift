// swift-tools-version: 6.0
import PackageDescription

// libvips' headers need glib's two include folders. They are named here rather than taken from
// vips.pc, whose `-pthread` SwiftPM refuses with a warning on every build.
#if arch(arm64)
    let multiarch = "aarch64-linux-gnu"
#else
    let multiarch = "x86_64-linux-gnu"
#endif
let glibIncludes = ["-I/usr/include/glib-2.0", "-I/usr/lib/\(multiarch)/glib-2.0/include"]

let package = Package(
    name: "Collage",
    products: [
        .library(name: "CollageCore", targets: ["CollageCore"]),
        .library(name: "CollageRender", targets: ["CollageRender"]),
        .library(name: "CollageLibrary", targets: ["CollageLibrary"]),
        .library(name: "Stickers", targets: ["Stickers"]),
        // OpenCV behind the subject-lifting shim, loaded by Stickers when a model is: commands
        // that lift no subject never load OpenCV (~9 MB and ~6 ms of start-up).
        .library(name: "CollageSegment", type: .dynamic, targets: ["CSegment"]),
        // FFmpeg behind the animation writer, loaded by CollageRender when an animation is written.
        .library(name: "CollageMotion", type: .dynamic, targets: ["CMotion"]),
        .library(name: "StickerPrint", targets: ["StickerPrint"]),
        .library(name: "CollageKit", targets: ["CollageKit"]),
        .library(name: "CollageServer", targets: ["CollageServer"]),
        .executable(name: "collage", targets: ["collage"]),
        // The seller's tool that signs licences: built here, never shipped with `collage`.
        .executable(name: "collage-licence", targets: ["collage-licence"]),
    ],
    targets: [
        // Pure Swift: documents, geometry, templates, edits, undo. Foundation only.
        .target(name: "CollageCore"),

        // libvips: the system library, and the fixed-arity C shim that is the only code including it.
        .systemLibrary(name: "CLibVips", providers: [.apt(["libvips-dev"])]),
        .target(
            name: "CVips", dependencies: ["CLibVips"],
            cSettings: [.unsafeFlags(glibIncludes)],
            linkerSettings: ["vips", "gobject-2.0", "glib-2.0", "gmodule-2.0", "jpeg"].map { .linkedLibrary($0) }),
        // A PNG writer that deflates bands of rows on several threads (ISA-L; zlib for checksums).
        .target(name: "CParallelPNG", linkerSettings: [.linkedLibrary("z"), .linkedLibrary("isal")]),
        // FFmpeg's libraries behind a thin C edge (its own shared object, see the products): frames
        // in, MP4, WebM, animated WebP, GIF, APNG out; and the function types it is loaded by.
        .target(name: "CMotionInterface"),
        .target(
            name: "CMotion", dependencies: ["CMotionInterface"],
            linkerSettings: ["avformat", "avcodec", "swscale", "avutil"].map { .linkedLibrary($0) }),
        // Collage document + photo files -> encoded image (or animation).
        .target(
            name: "CollageRender", dependencies: ["CollageCore", "CVips", "CParallelPNG", "CCairo", "CMotionInterface"]),

        // SQLite (module map + the macro shim) and the on-disk library built on it.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "CollageLibrary", dependencies: ["CollageCore", "CollageRender", "CSQLite"]),

        // OpenCV DNN + imgproc behind a plain-C header (its own shared object, see the products),
        // the header's function types, and subject lifting built on them.
        .target(name: "CSegmentInterface"),
        .target(
            name: "CSegment",
            dependencies: ["CSegmentInterface"],
            cxxSettings: [
                .unsafeFlags(["-I/usr/include/opencv4"]),
                // The convolution kernels are the model's inner loop: unoptimised, one inference
                // takes seconds, and the tests run many.
                .unsafeFlags(["-O2"], .when(configuration: .debug)),
            ],
            linkerSettings: [
                .linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core"),
            ]),
        .target(
            name: "Stickers", dependencies: ["CollageCore", "CollageRender", "CollageLibrary", "CSegmentInterface"]),

        // Print-ready stickers: cut lines traced by potrace, sheets packed and written as PDF (with
        // zlib's Flate streams), SVG and cairo-drawn preview pages.
        .systemLibrary(name: "CPotrace", providers: [.apt(["libpotrace-dev"])]),
        .systemLibrary(name: "CCairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "StickerPrint", dependencies: ["CollageCore", "CollageRender", "CPotrace", "CCairo", "CZlib"]),

        // libsodium (Ed25519) and the offline licence keys that unlock premium layouts.
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .target(name: "CollageLicence", dependencies: ["CSodium"]),
        .executableTarget(name: "collage-licence", dependencies: ["CollageLicence"]),

        // Every parser of untrusted bytes as one fuzz target (`make fuzz`; never shipped): built
        // with libFuzzer and the sanitizers by scripts/fuzz, and as a replayer of kept inputs here.
        .executableTarget(
            name: "collage-fuzz",
            dependencies: [
                "CollageCore", "CollageRender", "CollageLibrary", "CollageKit", "CollageLicence", "CollageServer",
                "Stickers",
                "CSQLite",
            ],
            path: "Fuzz/Sources"),

        // bench/layout's timing and geometry harness for AutoLayout (never shipped).
        .executableTarget(name: "layout-bench", dependencies: ["CollageCore"], path: "bench/layout/Swift"),

        // The use cases both faces call: options read once, one failure table, one JSON per record.
        .target(
            name: "CollageKit",
            dependencies: [
                "CollageCore", "CollageRender", "CollageLibrary", "Stickers", "CollageLicence", "StickerPrint",
            ]),

        // libmicrohttpd (module map + fixed-arity shims) and the editor's server on it; on the home
        // network it speaks TLS (GnuTLS, through libmicrohttpd) with a certificate GnuTLS makes
        // (CSecureLAN), and shows its pairing link as a QR code drawn by libqrencode.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "CSecureLAN", linkerSettings: [.linkedLibrary("gnutls")]),
        .systemLibrary(name: "CQREncode", providers: [.apt(["libqrencode-dev"])]),
        .target(
            name: "CollageServer",
            dependencies: [
                "CollageCore", "CollageRender", "CollageKit", "CollageLicence", "CMicroHTTPD", "CSecureLAN",
                "CQREncode",
            ],
            resources: [.copy("Resources/web")]),

        // The `collage` command: argument parsing and subcommands only.
        .executableTarget(
            name: "collage",
            dependencies: ["CollageCore", "CollageRender", "CollageKit", "CollageLicence", "CollageServer"]),

        // What the test targets share: temporary folders, photo files, tools, the in-process API client.
        .target(
            name: "CollageTestSupport",
            dependencies: [
                "CollageCore", "CollageRender", "CollageLibrary", "Stickers", "CollageLicence", "CollageServer",
            ],
            path: "Tests/Support"),

        .testTarget(name: "CollageCoreTests", dependencies: ["CollageCore"]),
        .testTarget(
            name: "CollageKitTests",
            dependencies: [
                "CollageKit", "CollageCore", "CollageLibrary", "CollageLicence", "CollageRender", "StickerPrint",
                "CollageTestSupport",
            ]),
        .testTarget(name: "CollageLicenceTests", dependencies: ["CollageLicence", "CollageTestSupport"]),
        .testTarget(
            name: "StickerPrintTests",
            dependencies: ["StickerPrint", "CollageRender", "CollageCore", "CollageTestSupport"]),
        .testTarget(
            name: "CollageRenderTests",
            dependencies: ["CollageRender", "CollageCore", "CParallelPNG", "CollageTestSupport"]),
        .testTarget(
            name: "StickersTests",
            dependencies: ["Stickers", "CollageLibrary", "CollageRender", "CollageCore", "CollageTestSupport"]),
        .testTarget(
            name: "CollageLibraryTests",
            dependencies: ["CollageLibrary", "CollageRender", "CollageCore", "CollageTestSupport"]),
        .testTarget(
            name: "CollageServerTests",
            dependencies: [
                "CollageServer", "CollageLibrary", "Stickers", "CollageRender", "CollageCore", "CollageLicence",
                "CollageTestSupport",
            ]),
        // Runs the built `collage` binary as a user would; depends on it so it is built first.
        .testTarget(
            name: "CollageCLITests",
            dependencies: [
                "collage", "collage-licence", "CollageCore", "CollageRender", "CollageLibrary", "CollageLicence",
                "CollageKit", "CollageServer", "CollageTestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
