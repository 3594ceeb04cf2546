import CollageLibrary

/// What `gc` removed (or would remove) and how much it freed.
public typealias CleanupReport = CollageLibrary.CleanupReport
/// What `doctor` found in the library, and what it repaired.
public typealias HealthReport = CollageLibrary.HealthReport

/// The library's upkeep: leftover files, and checking (and repairing) a damaged library.
extension Workspace {
    /// Removes files in the library's folders that no record uses and half-written files
    /// abandoned for over an hour; never a photo. With `dryRun`, says what would go.
    public func cleanUp(dryRun: Bool) throws(Failure) -> CleanupReport {
        try reading { () throws(LibraryError) in try library.cleanUp(dryRun: dryRun) }
    }

    /// Checks every cell of every table, every record's files and every collage; with `repair`,
    /// sets aside what is damaged (nothing that can be kept is deleted).
    public func checkHealth(repair: Bool) throws(Failure) -> HealthReport {
        try reading { () throws(LibraryError) in try library.checkHealth(repair: repair) }
    }
}
