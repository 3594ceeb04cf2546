/// The image engine's process-wide start-up.
public enum ImageEngine {
    /// Starts libvips for a command-line process. libvips' optional format modules (HEIC and
    /// AVIF, JPEG XL, PDF, the ImageMagick loaders) then load the first time a file or an output
    /// format needs one, instead of every run paying about 17 ms and 7 MB to load them.
    ///
    /// Call it first thing in `main`, while the process has a single thread (it briefly sets an
    /// environment variable). Without it, libvips starts on first use with every module loaded.
    public static func startForCommandLine() {
        Vips.startDeferringModules()
    }
}
