extension Template {
    /// The layouts anyone may apply, without Collage Premium.
    public static var free: [Template] { catalog.filter { !$0.isPremium } }
}

extension Collage {
    /// The premium layouts that `edits` would put this collage on and that it does not follow
    /// already: what applying them needs Collage Premium for. A collage that follows a premium
    /// layout (made on an unlocked machine, or received from someone) keeps it, and every other
    /// edit to it stays free, so nobody's own work is held back.
    public func premiumTemplates(appliedBy edits: [Edit]) -> [Template] {
        var found: [Template] = []
        for edit in edits {
            guard case .applyTemplate(let id) = edit, id != templateID, let template = Template.named(id),
                template.isPremium, !found.contains(template)
            else { continue }
            found.append(template)
        }
        return found
    }

    /// The premium layout a whole replacement document would put this collage on, if it follows
    /// one this collage does not.
    public func premiumTemplate(replacingWith replacement: Collage) -> Template? {
        guard let id = replacement.templateID, id != templateID, let template = Template.named(id), template.isPremium
        else { return nil }
        return template
    }
}
