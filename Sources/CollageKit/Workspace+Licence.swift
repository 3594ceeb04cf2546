import CollageCore
import CollageLicence

/// The licence use cases: what is unlocked, adding a key, removing it.
extension Workspace {
    /// The stored licence now: none, valid (for whom), or invalid (why).
    public func licence() -> LicenceState { licences.current() }

    /// Unlocks Collage Premium with a licence key, kept for this user; a refused key changes nothing.
    /// - Throws: ``Failure``: `invalidInput` for a refused key, `cannotWrite` when it cannot be kept.
    public func addLicence(_ key: String) throws(Failure) -> Licence {
        do {
            return try licences.add(key)
        } catch {
            throw error.failure
        }
    }

    /// Removes this user's licence; premium layouts lock again. `false` when there was none.
    @discardableResult
    public func removeLicence() throws(Failure) -> Bool {
        do {
            return try licences.remove()
        } catch {
            throw error.failure
        }
    }

    /// The premium layouts' ids, which a locked machine may preview but not keep.
    public static var premiumLayouts: [String] { Template.catalog.filter(\.isPremium).map(\.id) }
}
