import CollageCore
import CollageLibrary
import CollageLicence

/// What this machine may do with premium layouts: apply them when a valid licence is stored,
/// and otherwise only keep the ones a collage follows already. Every face checks a request with
/// it before applying a layout; nothing else (opening, editing, rendering, exporting) is gated.
public struct PremiumAccess: Sendable {
    /// The licence that unlocks premium layouts, if there is one.
    public let licence: Licence?

    /// Access as a licence gives it; `nil` is a machine without Collage Premium.
    public init(licence: Licence?) {
        self.licence = licence
    }

    /// Access as the user's stored licence gives it, read now.
    public init(store: LicenceStore) {
        self.init(licence: store.licence)
    }

    /// Whether premium layouts can be applied.
    public var isUnlocked: Bool { licence != nil }

    /// Refuses a premium `template` while premium is locked.
    /// - Throws: ``Failure`` of kind `locked` naming the layout.
    public func check(applying template: Template) throws(Failure) {
        guard template.isPremium, !isUnlocked else { return }
        throw Self.lockedFailure(template)
    }

    /// Refuses `edits` that would put `collage` on a premium layout it does not follow yet.
    /// - Throws: ``Failure`` of kind `locked` naming the first such layout.
    public func check(_ edits: [Edit], on collage: Collage) throws(Failure) {
        guard !isUnlocked, let template = collage.premiumTemplates(appliedBy: edits).first else { return }
        throw Self.lockedFailure(template)
    }

    /// Refuses a whole replacement document that follows a premium layout `collage` does not.
    /// - Throws: ``Failure`` of kind `locked`.
    public func check(replacing collage: Collage, with replacement: Collage) throws(Failure) {
        guard !isUnlocked, let template = collage.premiumTemplate(replacingWith: replacement) else { return }
        throw Self.lockedFailure(template)
    }

    /// The failure every face reports for a locked layout; each face adds how to unlock it there.
    static func lockedFailure(_ template: Template) -> Failure {
        Failure(
            .locked,
            "\(template.id) (\(template.name)) is a premium layout, and \(LicenceKey.productName) is not unlocked "
                + "on this machine; the free layouts are \(Template.free.map(\.id).joined(separator: ", ")), and "
                + "auto (laid out for the photos)")
    }
}
