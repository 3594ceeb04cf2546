import CollageCore
import Foundation
import Testing

@Suite("Photo filters and adjustments")
struct FilterTests {
    @Test func theCatalogHasTwelveNamedLooksWithinTheirRanges() {
        #expect(Filter.catalog.count == 12)
        #expect(Set(Filter.catalog.map(\.id)).count == 12, "ids are unique")
        for filter in Filter.catalog {
            #expect(filter.adjustments.problem == nil, "\(filter.id)")
            #expect(filter.curves.count == 3)
            for curve in filter.curves {
                for step in 0...10 {
                    #expect((0...1).contains(curve.value(at: Double(step) / 10)), "\(filter.id)")
                }
            }
        }
        #expect(Filter.named("film")?.name == "Film" && Filter.named("nope") == nil)
    }

    @Test func aFilterAtAStrengthScalesItsRecipeAndThePhotosOwnAdjustmentsAdd() throws {
        var look = ItemLook(filter: FilterChoice(id: "noir", strength: 0.5))
        look.adjustments.contrast = 80
        let combined = look.combinedAdjustments
        #expect(combined.saturation == -50 && combined.vignette == 17.5)
        #expect(combined.contrast == 100, "45 × ½ + 80, held at 100")
        let sepia = ItemLook(filter: FilterChoice(id: "sepia", strength: 0.5))
        let blue = try #require(sepia.combinedCurves?[2])
        #expect(abs(blue.value(at: 1) - 0.86) < 1e-9, "halfway from 1 to 0.72")
        #expect(ItemLook(filter: FilterChoice(id: "mono")).combinedCurves == nil, "no curves to apply")
        #expect(!ItemLook(filter: FilterChoice(id: "film", strength: 0)).changesColour)
    }

    @Test func badLooksAreRefusedNamingTheField() throws {
        var collage = try Fixtures.collage()
        collage = try collage.applying(.addItem(id: "s", content: .sticker("s.png"), frame: nil))
        var tooMuch = Adjustments()
        tooMuch.exposure = 1e300
        #expect(throws: EditError.invalidLook("exposure must be a number from -100 to 100, got 1e+300")) {
            try collage.applying(.setLook(id: "p0", look: ItemLook(adjustments: tooMuch)))
        }
        var negativeGrain = Adjustments()
        negativeGrain.grain = -1
        #expect(throws: EditError.self) {
            try collage.applying(.setLook(id: "p0", look: ItemLook(adjustments: negativeGrain)))
        }
        #expect(
            throws: EditError.invalidLook(
                "no filter named \"sparkle\"; expected one of \(Filter.catalog.map(\.id).joined(separator: ", "))")
        ) {
            try collage.applying(.setLook(id: "p0", look: ItemLook(filter: FilterChoice(id: "sparkle"))))
        }
        #expect(throws: EditError.invalidLook("a filter's strength must be a number from 0 to 1, got 2")) {
            try collage.applying(.setLook(id: "p0", look: ItemLook(filter: FilterChoice(id: "film", strength: 2))))
        }
        #expect(throws: EditError.invalidLook("only photos take adjustments and filters; this item is a sticker")) {
            try collage.applying(.setLook(id: "s", look: ItemLook(filter: FilterChoice(id: "film"))))
        }
    }

    @Test func aDocumentWritesTheFilterAndOnlyTheChangedAdjustments() throws {
        var collage = try Fixtures.collage()
        var adjustments = Adjustments()
        adjustments.warmth = 20
        adjustments.grain = 5
        collage = try collage.applying(
            .setLook(
                id: "p1", look: ItemLook(adjustments: adjustments, filter: FilterChoice(id: "film", strength: 0.6))))
        let text = String(decoding: CollageDocument.encode(collage, pretty: false), as: UTF8.self)
        #expect(text.contains(#""adjustments":{"grain":5,"warmth":20}"#))
        #expect(text.contains(#""filter":{"id":"film","strength":0.6}"#))
        #expect(try CollageDocument.decode(CollageDocument.encode(collage)) == collage)
        let bad = text.replacingOccurrences(of: #""id":"film""#, with: #""id":"films""#)
            .replacingOccurrences(of: #""grain":5"#, with: #""grain":500"#)
        do {
            _ = try CollageDocument.decode(Data(bad.utf8))
            Issue.record("read")
        } catch {
            let messages = error.issues.map(\.description)
            #expect(messages.contains { $0.hasPrefix("items[1].look.filter.id: no filter named \"films\"") })
            #expect(
                messages.contains { $0.hasPrefix("items[1].look.adjustments.grain: expected a number from 0 to 100") })
        }
    }
}
