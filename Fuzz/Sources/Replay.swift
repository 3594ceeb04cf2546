import Foundation

#if !COLLAGE_LIBFUZZER
    /// Without libFuzzer (an ordinary build): runs a target over kept inputs, files or folders of
    /// them, so the seeds and every crash once found are checked by `make test` on any build.
    @main
    struct Replay {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            guard let name = arguments.first, let target = FuzzTarget(rawValue: name), arguments.count > 1 else {
                FileHandle.standardError.write(
                    Data("usage: collage-fuzz TARGET (FILE | FOLDER)…  targets: \(FuzzTarget.names)\n".utf8))
                exit(64)
            }
            atexit { FuzzTarget.removeScratch() }
            var count = 0
            for path in arguments.dropFirst() {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
                let files =
                    isFolder.boolValue
                    ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map {
                        URL(fileURLWithPath: path).appendingPathComponent($0)
                    } : [URL(fileURLWithPath: path)]
                for file in files {
                    guard let data = try? Data(contentsOf: file) else { continue }
                    target.run(data)
                    count += 1
                }
            }
            print("\(name): \(count) inputs replayed, none failed")
        }
    }
#endif

#if COLLAGE_LIBFUZZER
    /// libFuzzer's driver, which reads its own flags and runs the entry point until told to stop.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ input: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// The executable's entry point (SwiftPM names it after the module) hands over to libFuzzer.
    @_cdecl("collage_fuzz_main")
    func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        atexit { FuzzTarget.removeScratch() }
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments) { bytes, size in fuzzOneInput(bytes, size) }
    }
#endif
