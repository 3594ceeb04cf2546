import CollageCore
import Testing

@Suite("Edits")
struct EditTests {
    @Test func addedPhotosFillEmptySlotsInOrder() throws {
        let collage = try Fixtures.collage(template: "magazine", photos: 4)
        let frames = try #require(collage.template).frames(for: collage)
        #expect(collage.items.map(\.slot) == [0, 1, 2, nil])
        #expect(collage.items[0].frame == frames[0] && collage.items[2].frame == frames[2])
        // The fourth photo had no slot left: it is centred at the default size.
        #expect(collage.items[3].frame.center == collage.bounds.center)
    }

    @Test func thingsAddedWithoutAPlaceNeverLandOnTopOfEachOther() throws {
        var collage = Collage(id: "c", title: "c", created: .now, canvas: Size(width: 1200, height: 1200))
        for index in 0..<6 {
            collage = try collage.applying(.addItem(id: "p\(index)", content: .photo("p\(index).jpg"), frame: nil))
        }
        collage = try collage.applying(.addItem(id: "s", content: .sticker("cat.png"), frame: nil))
        collage = try collage.applying(.addItem(id: "t", content: .text(TextBlock(text: "Hello")), frame: nil))
        let centres = collage.items.map(\.frame.center)
        for (a, first) in centres.enumerated() {
            for second in centres[(a + 1)...] {
                #expect(abs(first.x - second.x) + abs(first.y - second.y) > 50, "\(first) and \(second)")
            }
        }
        #expect(collage.items.allSatisfy { collage.bounds.contains($0.frame) })
        #expect(collage.items[0].frame.center == collage.bounds.center, "the first one is centred")
    }

    @Test func aPhotoAddedLaterGoesUnderTheStickersAndTextAboveTheOtherPhotos() throws {
        // A photo added to a collage with a sticker on it covered half of the sticker.
        var collage = try Fixtures.collage(template: "grid2x2", photos: 1)
        collage = try collage.applying([
            .addItem(id: "s", content: .sticker("cat.png"), frame: nil),
            .addItem(id: "t", content: .text(TextBlock(text: "Hello")), frame: nil),
            .addItem(id: "late", content: .photo("late.jpg"), frame: nil),
            .addItem(id: "placed", content: .photo("placed.jpg"), frame: Rect(x: 10, y: 10, width: 300, height: 200)),
        ])
        #expect(collage.items.map(\.id) == [collage.items[0].id, "late", "placed", "s", "t"])
        #expect(collage.item("late")?.slot == 1)
        // Stickers and text still go on top, and a photo brought forward stays where it is put.
        collage = try collage.applying([
            .reorder(id: "late", move: .front), .addItem(id: "s2", content: .sticker("dog.png"), frame: nil),
        ])
        #expect(collage.items.suffix(2).map(\.id) == ["late", "s2"])
        // With no photo yet, the first goes under what is already there.
        var empty = Collage(id: "e", title: "e", created: .now, canvas: Size(width: 1200, height: 900))
        empty = try empty.applying([
            .addItem(id: "s", content: .sticker("cat.png"), frame: nil),
            .addItem(id: "p", content: .photo("p.jpg"), frame: nil),
        ])
        #expect(empty.items.map(\.id) == ["p", "s"])
    }

    @Test func stickersFollowTheirPhotosWhenALayoutMovesThem() throws {
        // Two photos side by side, a sticker on each, one hanging off the canvas and a title.
        var collage = try Fixtures.collage(template: nil, photos: 0)
        collage = try collage.applying([
            .addItem(id: "left", content: .photo("l.jpg"), frame: nil),
            .addItem(id: "right", content: .photo("r.jpg"), frame: nil),
            .arrange(
                frames: [
                    "left": Rect(x: 0, y: 0, width: 600, height: 1200),
                    "right": Rect(x: 600, y: 0, width: 600, height: 1200),
                ], arrangement: Arrangement()),
            .addItem(id: "onLeft", content: .sticker("a.png"), frame: Rect(x: 100, y: 100, width: 200, height: 200)),
            .addItem(id: "onRight", content: .sticker("b.png"), frame: Rect(x: 800, y: 900, width: 100, height: 100)),
            .addItem(id: "hanging", content: .sticker("c.png"), frame: Rect(x: 1100, y: 500, width: 300, height: 100)),
            .addItem(
                id: "title", content: .text(TextBlock(text: "Hello")),
                frame: Rect(x: 100, y: 500, width: 300, height: 80)),
            // A photo added on top, where the left sticker is, then every photo laid out again:
            // the left photo now fills the top half, the right one the bottom left quarter.
            .addItem(id: "added", content: .photo("n.jpg"), frame: Rect(x: 0, y: 0, width: 600, height: 600)),
            .arrange(
                frames: [
                    "left": Rect(x: 0, y: 0, width: 1200, height: 600),
                    "right": Rect(x: 0, y: 600, width: 600, height: 600),
                    "added": Rect(x: 600, y: 600, width: 600, height: 600),
                ], arrangement: Arrangement()),
        ])
        // The left sticker keeps its place in the left photo, at its share of the photo's size.
        let onLeft = try #require(collage.item("onLeft")).frame
        #expect(onLeft.center == Point(x: 400, y: 100) && abs(onLeft.width - 200 * (2.0 * 0.5).squareRoot()) < 1e-9)
        let onRight = try #require(collage.item("onRight")).frame
        #expect(onRight.center == Point(x: 250, y: 1075))
        #expect(abs(onRight.width - 100 * (0.5).squareRoot()) < 1e-9)
        // Mostly on no photo, or a text: as they were.
        #expect(collage.item("hanging")?.frame == Rect(x: 1100, y: 500, width: 300, height: 100))
        #expect(collage.item("title")?.frame == Rect(x: 100, y: 500, width: 300, height: 80))
        // A template's slots move them too, and so do its wider gaps.
        var strip = try collage.applying(.applyTemplate(id: "strip"))
        let photo = try #require(strip.item("left")).frame
        #expect(photo.contains(try #require(strip.item("onLeft")).frame.center))
        let share = { (collage: Collage) throws -> Double in
            let (sticker, photo) = (
                try #require(collage.item("onLeft")).frame, try #require(collage.item("left")).frame
            )
            return (sticker.center.x - photo.x) / photo.width
        }
        let before = try share(strip)
        var style = strip.style
        style.padding += 60
        strip = try strip.applying(.setStyle(style))
        #expect(abs(try share(strip) - before) < 1e-9)
    }

    @Test func aDuplicateIsTheSameItemJustAboveAndAStepAwayFreeOfItsSlot() throws {
        var collage = try Fixtures.collage(template: "grid2x2", photos: 2)
        let original = collage.items[0]
        collage = try collage.applying([
            .rotateItem(id: original.id, degrees: 12),
            .setCrop(id: original.id, crop: Crop(focus: Point(x: 0.3, y: 0.6), zoom: 1.5)),
            .addItem(id: "s", content: .sticker("cat.png"), frame: Rect(x: 1100, y: 1100, width: 100, height: 100)),
            .setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 4, shadow: false, effect: .comic)),
        ])
        let before = collage.items.map(\.id)
        collage = try collage.applying(.duplicateItem(id: original.id, newID: "copy"))
        #expect(collage.items.map(\.id) == [before[0], "copy"] + before.dropFirst(), "just above its original")
        let source = collage.items[0]
        let copy = collage.items[1]
        #expect(copy.content == source.content && copy.rotation == source.rotation && copy.crop == source.crop)
        #expect(copy.frame.size == source.frame.size && copy.slot == nil && source.slot == 0)
        let step = (min(collage.canvas.width, collage.canvas.height) * 0.03).rounded()
        #expect(copy.frame.x == source.frame.x + step && copy.frame.y == source.frame.y + step)
        // At the canvas's edge the step goes back, so the copy stays on the canvas.
        collage = try collage.applying(.duplicateItem(id: "s", newID: "s2"))
        let sticker = try #require(collage.items.first { $0.id == "s" })
        let stickerCopy = try #require(collage.items.first { $0.id == "s2" })
        #expect(stickerCopy.stickerStyle == sticker.stickerStyle)
        #expect(stickerCopy.frame.maxX <= collage.canvas.width && stickerCopy.frame.x == sticker.frame.x - step)
        // Refused: an unknown item, a name that is taken.
        #expect(throws: EditError.unknownItem("nope")) { try collage.applying(.duplicateItem(id: "nope", newID: "x")) }
        #expect(throws: EditError.duplicateItem("s2")) { try collage.applying(.duplicateItem(id: "s", newID: "s2")) }
    }

    @Test func addingADuplicateIdIsRefused() throws {
        let collage = try Fixtures.collage()
        #expect(throws: EditError.duplicateItem("p0")) {
            try collage.applying(.addItem(id: "p0", content: .photo("x"), frame: nil))
        }
    }

    @Test func stickersAreNeverSlotted() throws {
        let collage = try Fixtures.collage(photos: 1).applying(
            .addItem(id: "s", content: .sticker("cat.png"), frame: nil))
        #expect(collage.item("s")?.slot == nil)
    }

    @Test func removeDropsTheItem() throws {
        let collage = try Fixtures.collage().applying(.removeItem(id: "p1"))
        #expect(collage.items.map(\.id) == ["p0", "p2", "p3"])
        #expect(throws: EditError.unknownItem("nope")) { try collage.applying(.removeItem(id: "nope")) }
    }

    @Test func moveSetsTheOriginAndLeavesTheSlotOnceTheCentreLeavesIt() throws {
        // grid2x2 on 1200 pt: slot 0 is the top-left quarter, centre (300, 300).
        let collage = try Fixtures.collage()
        let slot = try #require(collage.item("p0")).frame
        let far = try collage.applying(.moveItem(id: "p0", origin: Point(x: 700, y: 50)))
        let item = try #require(far.item("p0"))
        #expect(item.frame.origin == Point(x: 700, y: 50) && item.slot == nil)
        // The centre just inside the slot's right edge: still in the slot.
        let edge = try collage.applying(
            .moveItem(id: "p0", origin: Point(x: slot.x + slot.width / 2 - 1, y: slot.y)))
        #expect(edge.item("p0")?.slot == 0)
        let out = try collage.applying(
            .moveItem(id: "p0", origin: Point(x: slot.x + slot.width / 2 + 1, y: slot.y)))
        #expect(out.item("p0")?.slot == nil)
    }

    /// The editor's arrow keys move by 1 point (10 with Shift): a nudge is not leaving the layout,
    /// so the next photo added goes to an empty slot, not onto the nudged one.
    @Test func aNudgeKeepsTheSlotAndAddedPhotosGoToEmptySlots() throws {
        var collage = try Fixtures.collage(photos: 2)
        let before = try #require(collage.item("p0")).frame
        collage = try collage.applying(.moveItem(id: "p0", origin: Point(x: before.x + 1, y: before.y)))
        collage = try collage.applying(.moveItem(id: "p0", origin: Point(x: before.x + 11, y: before.y + 10)))
        #expect(collage.item("p0")?.slot == 0)
        #expect(collage.item("p0")?.frame.origin == Point(x: before.x + 11, y: before.y + 10))
        // Grown about its centre (the editor's + key): still in its slot too.
        let grown = try #require(collage.item("p1")).frame
        collage = try collage.applying(
            .resizeItem(
                id: "p1",
                frame: Rect(center: grown.center, size: Size(width: grown.width * 1.3, height: grown.height * 1.3))))
        #expect(collage.item("p1")?.slot == 1)
        collage = try collage.applying(.addItem(id: "new", content: .photo("n.jpg"), frame: nil))
        let frames = try #require(collage.template).frames(for: collage)
        #expect(collage.item("new")?.slot == 2 && collage.item("new")?.frame == frames[2])
        // Resized so that its centre leaves the slot: free.
        let free = try collage.applying(.resizeItem(id: "p1", frame: Rect(x: 0, y: 0, width: 100, height: 100)))
        #expect(free.item("p1")?.slot == nil)
    }

    @Test func moveMustKeepTheItemReachable() throws {
        let collage = try Fixtures.collage()
        #expect(throws: EditError.self) { try collage.applying(.moveItem(id: "p0", origin: Point(x: 5000, y: 0))) }
        #expect(throws: EditError.notFinite(field: "origin")) {
            try collage.applying(.moveItem(id: "p0", origin: Point(x: .nan, y: 0)))
        }
        // Mostly off the canvas is fine as long as 20 points each way remain.
        let edge = try collage.applying(.moveItem(id: "p0", origin: Point(x: 1180, y: 1180)))
        #expect(edge.item("p0")?.frame.origin == Point(x: 1180, y: 1180))
    }

    @Test func resizeEnforcesTheMinimumSize() throws {
        let collage = try Fixtures.collage()
        let resized = try collage.applying(.resizeItem(id: "p1", frame: Rect(x: 10, y: 10, width: 300, height: 200)))
        #expect(resized.item("p1")?.frame.size == Size(width: 300, height: 200))
        #expect(throws: EditError.frameTooSmall(width: 10, height: 200)) {
            try collage.applying(.resizeItem(id: "p1", frame: Rect(x: 10, y: 10, width: 10, height: 200)))
        }
        #expect(throws: EditError.self) {
            try collage.applying(.resizeItem(id: "p1", frame: Rect(x: 0, y: 0, width: 20_000, height: 200)))
        }
    }

    @Test func rotationIsNormalised() throws {
        let collage = try Fixtures.collage().applying(.rotateItem(id: "p0", degrees: 270))
        #expect(collage.item("p0")?.rotation.degrees == -90)
        #expect(throws: EditError.notFinite(field: "degrees")) {
            try collage.applying(.rotateItem(id: "p0", degrees: .infinity))
        }
    }

    @Test(arguments: [
        (ZOrderMove.forward, ["p0", "p2", "p1", "p3"]), (.backward, ["p1", "p0", "p2", "p3"]),
        (.front, ["p0", "p2", "p3", "p1"]), (.back, ["p1", "p0", "p2", "p3"]),
    ])
    func reorderMovesInTheStack(move: ZOrderMove, expected: [String]) throws {
        let collage = try Fixtures.collage().applying(.reorder(id: "p1", move: move))
        #expect(collage.items.map(\.id) == expected)
    }

    @Test func reorderAtTheEndsChangesNothing() throws {
        let collage = try Fixtures.collage()
        #expect(try collage.applying(.reorder(id: "p3", move: .forward)) == collage)
        #expect(try collage.applying(.reorder(id: "p0", move: .back)) == collage)
    }

    @Test func swapExchangesContentAndCropButNotFrames() throws {
        var collage = try Fixtures.collage()
        collage = try collage.applying(.setCrop(id: "p0", crop: Crop(focus: Point(x: 0.2, y: 0.2), zoom: 2)))
        let swapped = try collage.applying(.swapContents(first: "p0", second: "p3"))
        #expect(swapped.item("p0")?.content == .photo("photo3.jpg"))
        #expect(swapped.item("p3")?.content == .photo("photo0.jpg"))
        #expect(swapped.item("p3")?.crop?.zoom == 2 && swapped.item("p0")?.crop == nil)
        #expect(swapped.item("p0")?.frame == collage.item("p0")?.frame)
        #expect(throws: EditError.swapWithItself("p0")) {
            try collage.applying(.swapContents(first: "p0", second: "p0"))
        }
    }

    /// A photo nudged within its slot (a drag let go short) and then swapped with another: the
    /// photo coming into that slot took the nudged frame, a gap of canvas beside it and its
    /// corner under a neighbour. Each photo lies centred in its new slot; the turn it was given
    /// goes with it.
    @Test func swappedPhotosLieInTheirSlotsOwnFrames() throws {
        var collage = try Fixtures.collage()
        let frames = try #require(collage.template).frames(for: collage)
        let slot = try #require(collage.item("p0")?.slot)
        let nudged = Rect(
            x: frames[slot].x + 30, y: frames[slot].y + 20, width: frames[slot].width, height: frames[slot].height)
        collage = try collage.applying([.moveItem(id: "p0", origin: nudged.origin), .rotateItem(id: "p3", degrees: 8)])
        #expect(collage.item("p0")?.slot == slot)
        let swapped = try collage.applying(.swapContents(first: "p0", second: "p3"))
        #expect(swapped.item("p0")?.content == .photo("photo3.jpg"))
        #expect(swapped.item("p0")?.frame == frames[slot] && swapped.item("p0")?.rotation.degrees == 8)
        let other = try #require(swapped.item("p3")?.slot)
        #expect(swapped.item("p3")?.frame == frames[other] && swapped.item("p3")?.rotation.degrees == 0)
        // A photo made larger in its slot is as much larger in the other, centred there.
        let grown = try collage.applying([
            .resizeItem(
                id: "p3",
                frame: Rect(
                    x: frames[other].x - 10, y: frames[other].y - 20, width: frames[other].width + 20,
                    height: frames[other].height + 40)),
            .swapContents(first: "p3", second: "p0"),
        ])
        let wider = try #require(grown.item("p0")?.frame)
        #expect(abs(wider.width - frames[slot].width * (frames[other].width + 20) / frames[other].width) < 1e-6)
        #expect(
            abs(wider.center.x - frames[slot].center.x) < 1e-6 && abs(wider.center.y - frames[slot].center.y) < 1e-6)
    }

    /// Replacing a photo keeps everything but the picture: its id, frame, slot, turn, look and
    /// place in the stacking order; the crop, made for the old picture, returns to automatic.
    @Test func replacingAPhotoKeepsItsFrameLookAndPlace() throws {
        var collage = try Fixtures.collage()
        let look = ItemLook(opacity: 0.8, filter: FilterChoice(id: "vintage"), shape: .heart)
        collage = try collage.applying([
            .setCrop(id: "p1", crop: Crop(focus: Point(x: 0.2, y: 0.2), zoom: 2)), .setLook(id: "p1", look: look),
            .rotateItem(id: "p1", degrees: 12),
        ])
        let replaced = try collage.applying(.replacePhoto(id: "p1", photo: "new.jpg"))
        let before = try #require(collage.item("p1"))
        let after = try #require(replaced.item("p1"))
        #expect(after.content == .photo("new.jpg") && after.crop == nil)
        #expect(after.frame == before.frame && after.rotation == before.rotation && after.slot == before.slot)
        #expect(after.look == look)
        #expect(replaced.items.map(\.id) == collage.items.map(\.id))
        let sticker = try collage.applying(.addItem(id: "s", content: .sticker("s1"), frame: nil))
        #expect(throws: EditError.replacingNotAPhoto("s")) {
            try sticker.applying(.replacePhoto(id: "s", photo: "new.jpg"))
        }
        #expect(throws: EditError.unknownItem("gone")) { try collage.applying(.replacePhoto(id: "gone", photo: "x")) }
    }

    @Test func placingAFreePhotoInAnEmptySlotFitsItToTheSlot() throws {
        var collage = try Fixtures.collage(template: "grid2x2", photos: 2)
        let frames = try #require(collage.template).frames(for: collage)
        collage = try collage.applying(
            .addItem(id: "free", content: .photo("x.jpg"), frame: Rect(x: 5, y: 5, width: 90, height: 60)))
        collage = try collage.applying(.rotateItem(id: "free", degrees: 20))
        let placed = try collage.applying(.placeInSlot(id: "free", slot: 3))
        #expect(placed.item("free")?.slot == 3)
        #expect(placed.item("free")?.frame == frames[3])
        #expect(placed.item("free")?.rotation.degrees == 0)
    }

    @Test func placingInAFilledSlotSwapsWithItsPhoto() throws {
        let collage = try Fixtures.collage(template: "grid2x2", photos: 4)
        let frames = try #require(collage.template).frames(for: collage)
        let placed = try collage.applying(.placeInSlot(id: "p0", slot: 2))
        #expect(placed.item("p0")?.slot == 2 && placed.item("p0")?.frame == frames[2])
        #expect(placed.item("p2")?.slot == 0 && placed.item("p2")?.frame == frames[0])
        #expect(placed.items.filter { $0.slot == 2 }.count == 1)
    }

    @Test func placingInASlotNamesWhatIsWrong() throws {
        let collage = try Fixtures.collage(template: "grid2x2", photos: 2)
            .applying(.addItem(id: "s", content: .sticker("s.png"), frame: nil))
        #expect(throws: EditError.unknownSlot(4, slots: 4)) { try collage.applying(.placeInSlot(id: "p0", slot: 4)) }
        #expect(throws: EditError.notAPhoto("s")) { try collage.applying(.placeInSlot(id: "s", slot: 3)) }
        #expect(throws: EditError.unknownItem("nope")) { try collage.applying(.placeInSlot(id: "nope", slot: 3)) }
        #expect(EditError.unknownSlot(4, slots: 4).description.contains("0 to 3"))
    }

    @Test func applyTemplateSnapsPhotosInOrderAndStacksExtrasAtTheCentre() throws {
        var collage = try Fixtures.collage(template: "grid2x2", photos: 5)
        collage = try collage.applying(.rotateItem(id: "p2", degrees: 30))
        collage = try collage.applying(.rotateItem(id: "p3", degrees: 12))
        let strip = try collage.applying(.applyTemplate(id: "strip"))
        let frames = try #require(Template.named("strip")).frames(for: strip)
        #expect(strip.templateID == "strip")
        #expect(strip.items.map(\.id) == ["p0", "p1", "p2", "p3", "p4"])
        #expect(strip.items.map(\.slot) == [0, 1, 2, nil, nil])
        #expect(strip.item("p2")?.frame == frames[2] && strip.item("p2")?.rotation == .zero)
        // The two photos strip has no slot for: in front, upright, at the default size, a step
        // apart around the centre (not left in grid2x2's bottom-right quarter over slot 2).
        let extras = try [#require(strip.item("p3")), #require(strip.item("p4"))]
        let side = 1200 * EditRules.defaultItemFraction
        let step = 1200 * EditRules.cascadeStepFraction
        #expect(extras.allSatisfy { $0.rotation == .zero && $0.frame.size == Size(width: side, height: side) })
        #expect(extras[0].frame.center == Point(x: 600 - step / 2, y: 600 - step / 2))
        #expect(extras[1].frame.center == Point(x: 600 + step / 2, y: 600 + step / 2))
        #expect(strip.items.suffix(2).map(\.id) == ["p3", "p4"], "the extras are drawn on top")
        #expect(throws: EditError.unknownTemplate("hexagon")) { try collage.applying(.applyTemplate(id: "hexagon")) }
    }

    /// A photo nudged or grown inside its slot keeps that adjustment, relative to its slot,
    /// when the slots move; untouched ones fill their new slots exactly.
    @Test func styleChangesKeepAdjustmentsInsideSlots() throws {
        var collage = try Fixtures.collage(photos: 2)
        let slot = try #require(collage.item("p0")).frame
        let grown = Rect(center: slot.center, size: Size(width: slot.width * 1.3, height: slot.height * 1.3))
        collage = try collage.applying(.resizeItem(id: "p0", frame: grown))
        let spaced = try collage.applying(.setStyle(Style(spacing: 40, padding: 40)))
        let frames = try #require(spaced.template).frames(for: spaced)
        let kept = try #require(spaced.item("p0")).frame
        #expect(spaced.item("p0")?.slot == 0)
        #expect(kept != frames[0], "the resize was not undone")
        #expect(Fixtures.approximatelyEqual(kept.width / frames[0].width, 1.3))
        #expect(Fixtures.approximatelyEqual(kept.center.x, frames[0].center.x))
        #expect(spaced.item("p1")?.frame == frames[1], "the untouched photo fills its new slot")
        // A new shape too.
        let tall = try spaced.applying(.setAspect(try #require(AspectRatio(parsing: "2:3"))))
        let tallFrames = try #require(tall.template).frames(for: tall)
        #expect(Fixtures.approximatelyEqual(try #require(tall.item("p0")).frame.height / tallFrames[0].height, 1.3))
    }

    @Test func styleChangesReflowSlots() throws {
        let collage = try Fixtures.collage()
        let style = Style(background: .color(.black), spacing: 40, padding: 0, cornerRadius: 16)
        let restyled = try collage.applying(.setStyle(style))
        #expect(restyled.style == style)
        #expect(restyled.items[0].frame == Rect(x: 0, y: 0, width: 580, height: 580))
        #expect(restyled.items[1].frame.x == 620)
        #expect(throws: EditError.self) {
            try collage.applying(.setStyle(Style(spacing: -1)))
        }
        #expect(throws: EditError.self) {
            try collage.applying(.setStyle(Style(spacing: 400, padding: 400)))
        }
    }

    @Test func aspectChangesReflowSlotsAndKeepFreeItemsOnCanvas() throws {
        var collage = try Fixtures.collage(template: "strip", photos: 4)
        collage = try collage.applying(.resizeItem(id: "p3", frame: Rect(x: 100, y: 100, width: 1000, height: 1000)))
        let tall = try collage.applying(.setAspect(try #require(AspectRatio(parsing: "9:16"))))
        #expect(tall.canvas == Size(width: 675, height: 1200))
        let frames = try #require(tall.template).frames(for: tall)
        #expect(tall.items[0].frame == frames[0] && tall.items[2].frame == frames[2])
        let free = try #require(tall.item("p3")).frame
        #expect(free.width <= 675 && free.height <= 1200)
    }

    @Test func cropsAreValidated() throws {
        let collage = try Fixtures.collage().applying(.addItem(id: "s", content: .sticker("s.png"), frame: nil))
        let cropped = try collage.applying(.setCrop(id: "p0", crop: Crop(focus: Point(x: 0, y: 1), zoom: 3)))
        #expect(cropped.item("p0")?.crop == Crop(focus: Point(x: 0, y: 1), zoom: 3))
        #expect(try cropped.applying(.setCrop(id: "p0", crop: nil)).item("p0")?.crop == nil)
        #expect(throws: EditError.self) { try collage.applying(.setCrop(id: "p0", crop: Crop(zoom: 0.5))) }
        #expect(throws: EditError.self) {
            try collage.applying(.setCrop(id: "p0", crop: Crop(focus: Point(x: 1.5, y: 0))))
        }
        #expect(throws: EditError.self) { try collage.applying(.setCrop(id: "s", crop: Crop())) }
    }

    @Test func renameTrimsAndRefusesEmptyOrLongTitles() throws {
        let collage = try Fixtures.collage()
        #expect(try collage.applying(.rename(title: "  Summer  ")).title == "Summer")
        #expect(throws: EditError.invalidTitle("a title must not be empty")) {
            try collage.applying(.rename(title: " \n "))
        }
        #expect(throws: EditError.self) { try collage.applying(.rename(title: String(repeating: "x", count: 201))) }
    }

    @Test func errorsSayWhatWasExpectedAndReceived() {
        #expect(
            EditError.frameTooSmall(width: 10, height: 200).description
                == "a frame must be at least 20 points on each side, got 10 × 200")
        #expect(EditError.unknownTemplate("x").description.contains("grid2x2, magazine"))
    }

    @Test func aRefusedEditInABatchAppliesNothing() throws {
        let collage = try Fixtures.collage()
        #expect(throws: EditError.self) {
            try collage.applying([.rename(title: "New"), .removeItem(id: "missing")])
        }
        #expect(collage.title == "Test")
    }
}

extension EditTests {
    @Test func aStickerItemShowsItsRefinedCopyKeepingItsFrameAndStyle() throws {
        var collage = Collage(id: "c", title: "Refine", created: .now, canvas: Size(width: 1000, height: 1000))
        collage = try collage.applying(
            .addItem(id: "s", content: .sticker("first"), frame: Rect(x: 100, y: 100, width: 300, height: 200)))
        collage = try collage.applying(.addItem(id: "p", content: .photo("photo"), frame: nil))
        collage = try collage.applying(.rotateItem(id: "s", degrees: 12))
        collage = try collage.applying(
            .setStickerStyle(id: "s", style: StickerStyle(outlineWidth: 6, shadow: true, effect: .puffy)))
        let replaced = try collage.applying(.replaceSticker(id: "s", sticker: "refined"))
        let item = try #require(replaced.items.first { $0.id == "s" })
        #expect(item.content == .sticker("refined"))
        #expect(item.frame == Rect(x: 100, y: 100, width: 300, height: 200) && item.rotation.degrees == 12)
        #expect(item.stickerStyle == StickerStyle(outlineWidth: 6, shadow: true, effect: .puffy))
        #expect(throws: EditError.self) { try collage.applying(.replaceSticker(id: "p", sticker: "refined")) }
        #expect(throws: EditError.self) { try collage.applying(.replaceSticker(id: "s", sticker: "")) }
    }
}
