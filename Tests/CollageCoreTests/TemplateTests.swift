import CollageCore
import Foundation
import Testing

@Suite("Templates")
struct TemplateTests {
    static let canvases = [
        Size(width: 400, height: 400), Size(width: 1200, height: 1500), Size(width: 1920, height: 1080),
        Size(width: 333, height: 777), Size(width: 3600, height: 2400),
    ]
    static let spacings: [(spacing: Double, padding: Double)] = [(0, 0), (4, 4), (12, 12), (20, 6), (3, 30)]

    @Test func catalogHasTheOriginalFourAndAtLeastTenMore() throws {
        let ids = Template.catalog.map(\.id)
        #expect(Array(ids.prefix(4)) == ["grid2x2", "magazine", "strip", "triptych"])
        #expect(Template.catalog.count >= 14)
        #expect(Set(ids).count == ids.count, "template ids are unique")
        let counts = ["grid2x2": 4, "magazine": 3, "strip": 3, "triptych": 3]
        for (id, count) in counts { #expect(Template.named(id)?.slotCount == count) }
        #expect(Template.named("grid2x2")?.isPremium == false)
        #expect(Template.named("strip")?.isPremium == false)
        #expect(Template.named("magazine")?.isPremium == true)
        #expect(Template.named("triptych")?.isPremium == true)
        #expect(Template.catalog.filter { !$0.isPremium }.count >= 4)
        for template in Template.catalog {
            #expect(!template.name.isEmpty && !template.symbol.isEmpty)
        }
    }

    @Test(arguments: Template.catalog)
    func framesStayInsideTheCanvasWithoutOverlapping(template: Template) {
        for canvas in Self.canvases {
            for (spacing, padding) in Self.spacings {
                let frames = template.frames(in: canvas, spacing: spacing, padding: padding)
                #expect(frames.count == template.slotCount)
                let inner = Rect(
                    x: padding, y: padding, width: canvas.width - 2 * padding, height: canvas.height - 2 * padding)
                for frame in frames {
                    #expect(inner.contains(frame, tolerance: 0.002), "\(template.id) \(frame) outside \(inner)")
                    #expect(frame.width > 0 && frame.height > 0)
                }
                for (i, a) in frames.enumerated() {
                    for b in frames[(i + 1)...] {
                        let touchesOnly = a.intersection(b).map { $0.width < 0.002 || $0.height < 0.002 } ?? true
                        #expect(touchesOnly, "\(template.id): \(a) overlaps \(b)")
                    }
                }
            }
        }
    }

    /// Every slot edge that touches the canvas edge sits exactly `padding` in; every pair of
    /// neighbouring slots is exactly `spacing` apart.
    @Test(arguments: Template.catalog)
    func spacingAndPaddingAreExact(template: Template) {
        for canvas in Self.canvases {
            for (spacing, padding) in Self.spacings {
                let frames = template.frames(in: canvas, spacing: spacing, padding: padding)
                for (slot, frame) in zip(template.slots, frames) {
                    if slot.x == 0 { #expect(abs(frame.x - padding) < 0.002) }
                    if abs(slot.maxX - 1) < 1e-9 { #expect(abs(frame.maxX - (canvas.width - padding)) < 0.002) }
                    if slot.y == 0 { #expect(abs(frame.y - padding) < 0.002) }
                    if abs(slot.maxY - 1) < 1e-9 { #expect(abs(frame.maxY - (canvas.height - padding)) < 0.002) }
                }
                for (i, a) in template.slots.enumerated() {
                    for (j, b) in template.slots.enumerated() where i != j {
                        let sharesVerticalEdge = abs(a.maxX - b.x) < 1e-9 && a.y < b.maxY && b.y < a.maxY
                        let sharesHorizontalEdge = abs(a.maxY - b.y) < 1e-9 && a.x < b.maxX && b.x < a.maxX
                        if sharesVerticalEdge { #expect(abs(frames[j].x - frames[i].maxX - spacing) < 0.003) }
                        if sharesHorizontalEdge { #expect(abs(frames[j].y - frames[i].maxY - spacing) < 0.003) }
                    }
                }
            }
        }
    }

    @Test func equalSlotsGetEqualFrames() throws {
        let strip = try #require(Template.named("strip"))
        let frames = strip.frames(in: Size(width: 1000, height: 300), spacing: 10, padding: 25)
        let widths = Set(frames.map(\.width))
        #expect(widths.count == 1)
        #expect(Fixtures.approximatelyEqual(frames[0].width, (1000 - 50 - 20) / 3, tolerance: 0.001))
    }

    @Test func magazineMatchesTheWorkedExample() throws {
        let frames = try #require(Template.named("magazine")).frames(
            in: Size(width: 400, height: 400), spacing: 4, padding: 4)
        let expected = [
            Rect(x: 4, y: 4, width: 214, height: 392), Rect(x: 222, y: 4, width: 174, height: 194),
            Rect(x: 222, y: 202, width: 174, height: 194),
        ]
        for (frame, want) in zip(frames, expected) { expectWithinOnePixel(frame, want) }
    }

    /// The original app's formulas, written out per template, with S = P = p.
    @Test(arguments: [0.0, 2, 4, 8])
    func originalFourMatchTheirFormulas(p: Double) throws {
        for canvas in Self.canvases {
            let (w, h) = (canvas.width, canvas.height)
            let half = (w - 2 * p - p) / 2
            let halfHeight = (h - 2 * p - p) / 2
            let grid = [
                Rect(x: p, y: p, width: half, height: halfHeight),
                Rect(x: p + half + p, y: p, width: half, height: halfHeight),
                Rect(x: p, y: p + halfHeight + p, width: half, height: halfHeight),
                Rect(x: p + half + p, y: p + halfHeight + p, width: half, height: halfHeight),
            ]
            let leftWidth = w * 0.55 - p - p / 2
            let magazine = [
                Rect(x: p, y: p, width: leftWidth, height: h - 2 * p),
                Rect(x: w * 0.55 + p / 2, y: p, width: w * 0.45 - p / 2 - p, height: halfHeight),
                Rect(x: w * 0.55 + p / 2, y: p + halfHeight + p, width: w * 0.45 - p / 2 - p, height: halfHeight),
            ]
            let third = (w - 2 * p - 2 * p) / 3
            let strip = (0..<3).map { Rect(x: p + Double($0) * (third + p), y: p, width: third, height: h - 2 * p) }
            let topHeight = h * 0.6 - p - p / 2
            let bottomY = h * 0.6 + p / 2
            let triptych = [
                Rect(x: p, y: p, width: w - 2 * p, height: topHeight),
                Rect(x: p, y: bottomY, width: half, height: h - p - bottomY),
                Rect(x: p + half + p, y: bottomY, width: half, height: h - p - bottomY),
            ]
            for (id, expected) in [("grid2x2", grid), ("magazine", magazine), ("strip", strip), ("triptych", triptych)]
            {
                let frames = try #require(Template.named(id)).frames(in: canvas, spacing: p, padding: p)
                #expect(frames.count == expected.count)
                for (frame, want) in zip(frames, expected) { expectWithinOnePixel(frame, want, id) }
            }
        }
    }

    private func expectWithinOnePixel(_ frame: Rect, _ want: Rect, _ label: String = "") {
        let deltas = [frame.x - want.x, frame.y - want.y, frame.width - want.width, frame.height - want.height]
        #expect(deltas.allSatisfy { abs($0) <= 1 }, "\(label): \(frame) vs \(want)")
    }
}

/// Which layouts need Collage Premium, and which edits apply one.
struct PremiumTemplateTests {
    @Test func theGridsAndTheStripStayFree() {
        let free = Set(Template.free.map(\.id))
        #expect(free.isSuperset(of: ["grid2x2", "strip", "sideBySide", "stacked", "grid3x3", "grid2x3", "grid3x2"]))
        #expect(!free.contains("magazine") && !free.contains("triptych"))
    }

    @Test func onlyEditsThatPutTheCollageOnANewPremiumLayoutNeedIt() {
        let grid = Collage(
            id: "c", title: "t", created: Date(), canvas: Size(width: 100, height: 100), templateID: "grid2x2")
        #expect(grid.premiumTemplates(appliedBy: [.applyTemplate(id: "strip"), .rename(title: "x")]).isEmpty)
        #expect(
            grid.premiumTemplates(appliedBy: [.applyTemplate(id: "magazine"), .applyTemplate(id: "magazine")]).map(\.id)
                == ["magazine"])
        var magazine = grid
        magazine.templateID = "magazine"
        // Re-applying the layout a collage follows (a reflow) is not a new unlock.
        #expect(magazine.premiumTemplates(appliedBy: [.applyTemplate(id: "magazine")]).isEmpty)
        #expect(magazine.premiumTemplates(appliedBy: [.applyTemplate(id: "triptych")]).map(\.id) == ["triptych"])
        #expect(grid.premiumTemplate(replacingWith: magazine)?.id == "magazine")
        #expect(magazine.premiumTemplate(replacingWith: magazine) == nil)
        #expect(magazine.premiumTemplate(replacingWith: grid) == nil)
    }
}
