import Foundation

extension Collage {
    /// The collage with `edit` applied. Pure: the receiver is unchanged, and so is the result's
    /// ``updated`` date (the library stamps it when it saves).
    /// - Throws: ``EditError`` saying what was wrong; nothing is applied then.
    public func applying(_ edit: Edit) throws(EditError) -> Collage {
        var next = self
        try next.apply(edit)
        return next
    }

    /// The collage with every edit applied in order; all or nothing.
    public func applying(_ edits: [Edit]) throws(EditError) -> Collage {
        var next = self
        for edit in edits { try next.apply(edit) }
        return next
    }

    private mutating func apply(_ edit: Edit) throws(EditError) {
        switch edit {
        case .addItem(let id, let content, let frame):
            guard item(id) == nil else { throw .duplicateItem(id) }
            guard items.count < Limits.maximumItems else { throw .tooManyItems(limit: Limits.maximumItems) }
            var placed = CollageItem(
                id: id, content: content, frame: frame ?? clearOfOthers(defaultFrame(for: content)))
            if case .sticker = content { placed.stickerStyle = StickerStyle() }
            if frame == nil, case .photo = content, let (slot, slotFrame) = firstEmptySlot() {
                placed.frame = slotFrame
                placed.slot = slot
                placed.look.shape = template?.shape(ofSlot: slot) ?? .rectangle
            }
            try validate(placed.frame)
            try validateText(of: placed)
            // Stickers and text decorate the photos: a photo added later goes in just above the
            // other photos, not over them (a photo added to a smart layout hid half the sticker
            // just refined on it).
            if case .photo = content {
                items.insert(placed, at: photoIndices.last.map { $0 + 1 } ?? 0)
            } else {
                items.append(placed)
            }
        case .duplicateItem(let id, let newID):
            let index = try indexOf(id)
            guard item(newID) == nil else { throw .duplicateItem(newID) }
            guard items.count < Limits.maximumItems else { throw .tooManyItems(limit: Limits.maximumItems) }
            var copy = items[index]
            copy.id = newID
            copy.slot = nil
            copy.frame = offsetForCopy(copy.frame)
            try validate(copy.frame)
            items.insert(copy, at: index + 1)
        case .removeItem(let id):
            let index = try indexOf(id)
            items.remove(at: index)
            // A hero that is gone leaves the arrangement without one, never naming a missing item.
            if arrangement?.hero == id { arrangement?.hero = nil }
        case .moveItem(let id, let origin):
            let index = try indexOf(id)
            guard origin.x.isFinite, origin.y.isFinite else { throw .notFinite(field: "origin") }
            let moved = Rect(origin: origin, size: items[index].frame.size)
            try validate(moved)
            items[index].frame = moved
            keepSlotWhileCentred(index)
            leaveArrangement(movingItemAt: index)
        case .resizeItem(let id, let frame):
            let index = try indexOf(id)
            try validate(frame)
            var resized = items[index]
            resized.frame = frame
            try validateText(of: resized)
            items[index].frame = frame
            // As with a move: growing or shrinking a photo in place is not leaving the layout.
            keepSlotWhileCentred(index)
            leaveArrangement(movingItemAt: index)
        case .rotateItem(let id, let degrees):
            let index = try indexOf(id)
            guard degrees.isFinite else { throw .notFinite(field: "degrees") }
            items[index].rotation = Angle(degrees: degrees)
            leaveArrangement(movingItemAt: index)
        case .reorder(let id, let move):
            let index = try indexOf(id)
            let target =
                switch move {
                case .forward: min(index + 1, items.count - 1)
                case .backward: max(index - 1, 0)
                case .front: items.count - 1
                case .back: 0
                }
            items.insert(items.remove(at: index), at: target)
        case .swapContents(let first, let second):
            guard first != second else { throw .swapWithItself(first) }
            let (a, b) = (try indexOf(first), try indexOf(second))
            // A text fits its frame to its words; swapped into a photo's frame it would not.
            for index in [a, b] where items[index].content.textBlock != nil {
                throw .invalidText("item \"\(items[index].id)\" is text; only photos and stickers swap what they show")
            }
            // How each photo sat in its slot, if it has one: its size against the slot's frame
            // and its turn travel with it into the other slot; where it had been moved to does
            // not. (A photo nudged in its slot, a drag let go short, passed its offset to the
            // photo swapped in: a white L of gap beside it, its corner under a neighbour.)
            let frames = template?.frames(for: self) ?? []
            func fit(_ index: Int) -> (width: Double, height: Double, rotation: Angle)? {
                guard let slot = items[index].slot, frames.indices.contains(slot) else { return nil }
                let (frame, own) = (items[index].frame, frames[slot])
                return (frame.width / own.width, frame.height / own.height, items[index].rotation)
            }
            let fits = [a: fit(b), b: fit(a)]
            (items[a].content, items[b].content) = (items[b].content, items[a].content)
            (items[a].crop, items[b].crop) = (items[b].crop, items[a].crop)
            (items[a].stickerStyle, items[b].stickerStyle) = (items[b].stickerStyle, items[a].stickerStyle)
            (items[a].look, items[b].look) = (items[b].look, items[a].look)
            for (index, from) in [(a, b), (b, a)] {
                guard let slot = items[index].slot, frames.indices.contains(slot) else { continue }
                // A shaped slot keeps its shape; the photo's own shape comes with it.
                takeSlotShape(index, moving: items[from].slot, to: slot, from: template, to: template)
                let own = frames[slot]
                let fitted = fits[index] ?? nil
                let (width, height) = (own.width * (fitted?.width ?? 1), own.height * (fitted?.height ?? 1))
                items[index].frame = Rect(
                    x: own.x + (own.width - width) / 2, y: own.y + (own.height - height) / 2, width: width,
                    height: height)
                items[index].rotation = fitted?.rotation ?? Angle(degrees: 0)
            }
        case .placeInSlot(let id, let slot):
            let index = try indexOf(id)
            guard case .photo = items[index].content else { throw .notAPhoto(id) }
            let frames = template?.frames(for: self) ?? []
            guard frames.indices.contains(slot) else { throw .unknownSlot(slot, slots: frames.count) }
            if let occupant = items.indices.first(where: { $0 != index && items[$0].slot == slot }) {
                takeSlotShape(occupant, moving: slot, to: items[index].slot, from: template, to: template)
                items[occupant].slot = items[index].slot
                items[occupant].frame = items[index].slot.map { frames[$0] } ?? items[index].frame
                items[occupant].rotation = items[index].slot == nil ? items[index].rotation : Angle(degrees: 0)
            }
            takeSlotShape(index, moving: items[index].slot, to: slot, from: template, to: template)
            items[index].slot = slot
            items[index].frame = frames[slot]
            items[index].rotation = Angle(degrees: 0)
            items[index].crop = nil
        case .applyTemplate(let id):
            guard let template = Template.named(id) else { throw .unknownTemplate(id) }
            let before = photoFrames
            snap(into: template)
            arrangement = nil
            carryStickers(from: before)
        case .arrange(let frames, let arrangement):
            let before = photoFrames
            for (id, frame) in frames.sorted(by: { $0.key < $1.key }) {
                let index = try indexOf(id)
                try validate(frame)
                items[index].frame = frame
                items[index].rotation = .zero
                takeSlotShape(index, moving: items[index].slot, to: nil, from: template, to: nil)
                items[index].slot = nil
                items[index].crop = nil
            }
            if let hero = arrangement.hero {
                guard case .photo = items[try indexOf(hero)].content else { throw .notAPhoto(hero) }
            }
            guard arrangement.maximumCrop.isFinite, (0...0.5).contains(arrangement.maximumCrop) else {
                throw .invalidCrop("an arrangement crops at most half a photo")
            }
            guard arrangement.seed <= Arrangement.maximumSeed else {
                throw .invalidStyle("an arrangement's seed is at most 2^53")
            }
            templateID = nil
            self.arrangement = arrangement
            carryStickers(from: before)
        case .setStyle(let style):
            try validate(style, canvas: canvas)
            let before = template?.frames(for: self)
            let photos = photoFrames
            self.style = style
            reflow(from: before)
            carryStickers(from: photos)
        case .setAspect(let aspect):
            let newCanvas = aspect.canvasSize(longSide: max(canvas.width, canvas.height))
            try validate(style, canvas: newCanvas)
            let before = template?.frames(for: self)
            rescaleFreeItems(to: newCanvas)
            canvas = newCanvas
            reflow(from: before)
        case .setCrop(let id, let crop):
            let index = try indexOf(id)
            if let crop {
                guard case .photo = items[index].content else {
                    throw .invalidCrop("item \"\(id)\" is a \(items[index].content.kind); only photos are cropped")
                }
                try validate(crop)
            }
            items[index].crop = crop
        case .setStickerStyle(let id, let style):
            let index = try indexOf(id)
            if let style {
                guard case .sticker = items[index].content else {
                    throw .invalidStickerStyle(
                        "item \"\(id)\" is a \(items[index].content.kind); this outline and shadow are for stickers")
                }
                guard style.outlineWidth.isFinite, (0...StickerStyle.maximumOutlineWidth).contains(style.outlineWidth)
                else {
                    throw .invalidStickerStyle(
                        "an outline must be 0 to \(JSONValue.format(StickerStyle.maximumOutlineWidth)) points wide, "
                            + "got \(JSONValue.format(style.outlineWidth))")
                }
            }
            items[index].stickerStyle = style
        case .replaceSticker(let id, let sticker):
            let index = try indexOf(id)
            guard case .sticker = items[index].content else {
                throw .invalidStickerStyle(
                    "item \"\(id)\" is a \(items[index].content.kind); only a sticker item shows another sticker")
            }
            guard !sticker.isEmpty else { throw .invalidStickerStyle("a sticker's id is empty") }
            items[index].content = .sticker(sticker)
        case .replacePhoto(let id, let photo):
            let index = try indexOf(id)
            guard case .photo = items[index].content else { throw .replacingNotAPhoto(id) }
            guard !photo.isEmpty else { throw .noPhotoNamed(id) }
            items[index].content = .photo(photo)
            items[index].crop = nil
        case .setLook(let id, let look):
            let index = try indexOf(id)
            if let problem = look.problem(for: items[index].content) { throw .invalidLook(problem) }
            items[index].look = look
        case .setText(let id, let block):
            let index = try indexOf(id)
            guard case .text = items[index].content else {
                throw .invalidText("item \"\(id)\" is a \(items[index].content.kind), not text")
            }
            var changed = items[index]
            changed.content = .text(block)
            try validateText(of: changed)
            items[index].content = .text(block)
        case .rename(let title):
            let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw .invalidTitle("a title must not be empty") }
            guard trimmed.count <= EditRules.maximumTitleLength else {
                throw .invalidTitle(
                    "a title may be at most \(EditRules.maximumTitleLength) characters, got \(trimmed.count)")
            }
            self.title = trimmed
        }
    }

    private func indexOf(_ id: String) throws(EditError) -> Int {
        guard let index = zIndex(of: id) else { throw .unknownItem(id) }
        return index
    }

    private func defaultFrame(for content: ItemContent) -> Rect {
        if case .text(let block) = content {
            // Wide enough for a caption; the service layer fits the height to the words.
            let width = max(EditRules.minimumItemSide, canvas.width * EditRules.defaultTextWidthFraction)
            let height = max(EditRules.minimumItemSide, block.size * block.lineSpacing * 1.25 + 2 * block.inset)
            return Rect(center: bounds.center, size: Size(width: width, height: height))
        }
        let side = min(canvas.width, canvas.height) * EditRules.defaultItemFraction
        return Rect(center: bounds.center, size: Size(width: side, height: side))
    }

    /// `frame` moved along a diagonal cascade until no item already sits at (about) the same
    /// place: several things added without a place are each seen and can each be grabbed, never
    /// one exactly on top of another (or of the title).
    private func clearOfOthers(_ frame: Rect) -> Rect {
        let step = min(canvas.width, canvas.height) * EditRules.cascadeStepFraction
        guard step > 0 else { return frame }
        func isTaken(_ candidate: Rect) -> Bool {
            items.contains { item in
                abs(item.frame.center.x - candidate.center.x) < step / 2
                    && abs(item.frame.center.y - candidate.center.y) < step / 2
            }
        }
        // The nearest free place in steps from the centre, down and to the right first (the
        // cascade people know), then the other diagonals, then straight across.
        let steps = -6...6
        let offsets = steps.flatMap { x in steps.map { y in (x: Double(x), y: Double(y)) } }.sorted { a, b in
            let (ringA, ringB) = (max(abs(a.x), abs(a.y)), max(abs(b.x), abs(b.y)))
            if ringA != ringB { return ringA < ringB }
            let (diagonalA, diagonalB) = (a.x == a.y, b.x == b.y)
            if diagonalA != diagonalB { return diagonalA }
            return (a.x + a.y, a.x, a.y) > (b.x + b.y, b.x, b.y)
        }
        for offset in offsets {
            var candidate = frame
            candidate.x += offset.x * step
            candidate.y += offset.y * step
            guard candidate.x >= 0, candidate.y >= 0, candidate.maxX <= canvas.width, candidate.maxY <= canvas.height
            else { continue }
            if !isTaken(candidate) { return candidate }
        }
        return frame
    }

    private func validateText(of item: CollageItem) throws(EditError) {
        guard case .text(let block) = item.content else { return }
        if let problem = block.problems.first { throw .invalidText("\(problem.field): \(problem.message)") }
        if let problem = block.problem(inWidth: item.frame.width, canvasHeight: canvas.height) {
            throw .invalidText(problem)
        }
    }

    /// A nudge, a short drag or a resize in place is not a decision to leave the layout: an item
    /// keeps its slot while its centre stays inside the slot's frame, so the next photo added
    /// does not land on it. Moved further, it is free.
    private mutating func keepSlotWhileCentred(_ index: Int) {
        if let slot = items[index].slot, slotFrame(slot)?.contains(items[index].frame.center) != true {
            items[index].slot = nil
        }
    }

    /// The frame of slot `index` in the current template, if there is one.
    private func slotFrame(_ index: Int) -> Rect? {
        guard let template else { return nil }
        let frames = template.frames(for: self)
        return frames.indices.contains(index) ? frames[index] : nil
    }

    private func firstEmptySlot() -> (Int, Rect)? {
        guard let template else { return nil }
        let taken = Set(items.compactMap(\.slot))
        let frames = template.frames(for: self)
        return frames.indices.first { !taken.contains($0) }.map { ($0, frames[$0]) }
    }

    /// A photo moved, resized or turned by hand makes the layout the person's own: the
    /// arrangement is dropped, so nothing later lays the photos out again over their hand's work.
    private mutating func leaveArrangement(movingItemAt index: Int) {
        guard arrangement != nil, case .photo = items[index].content else { return }
        arrangement = nil
    }

    /// Photos already in slots keep their order, then free photos follow from the back of the stack.
    /// Every photo's frame, by id.
    private var photoFrames: [String: Rect] {
        Dictionary(photoIndices.map { (items[$0].id, items[$0].frame) }, uniquingKeysWith: { first, _ in first })
    }

    /// Stickers that lie on a photo follow it when a layout moves the photos (a photo added to a
    /// smart layout moved every photo, and the stickers stayed behind on the wrong ones). A
    /// sticker goes with the photo under its centre that held at least half of it, the lowest of
    /// them (a photo just added, above the others, is not yet where the sticker is), and keeps
    /// its place and its share of that photo's frame. One that lies on no photo, or across
    /// several, stays; so does one the move would take off the canvas, and every text (a title
    /// is the collage's, not a photo's).
    private mutating func carryStickers(from before: [String: Rect]) {
        let photos = photoIndices
        for index in items.indices {
            guard case .sticker = items[index].content else { continue }
            let frame = items[index].frame
            let holder = photos.first { photo in
                guard let old = before[items[photo].id], old.contains(frame.center),
                    let shared = old.intersection(frame)
                else { return false }
                return shared.width * shared.height >= frame.width * frame.height / 2
            }
            guard let holder, let old = before[items[holder].id] else { continue }
            let new = items[holder].frame
            guard new != old, old.width > 0, old.height > 0 else { continue }
            let (scaleX, scaleY) = (new.width / old.width, new.height / old.height)
            let centre = Point(
                x: new.x + (frame.center.x - old.x) * scaleX, y: new.y + (frame.center.y - old.y) * scaleY)
            let scale = (scaleX * scaleY).squareRoot()
            let carried = Rect(center: centre, size: Size(width: frame.width * scale, height: frame.height * scale))
            guard (try? validate(carried)) != nil else { continue }
            items[index].frame = carried
        }
    }

    private mutating func snap(into template: Template) {
        let old = self.template
        templateID = template.id
        let ordered = photoIndicesInLayoutOrder
        let frames = template.frames(for: self)
        var extras: [String] = []
        for (position, index) in ordered.enumerated() {
            takeSlotShape(
                index, moving: items[index].slot, to: position < frames.count ? position : nil, from: old,
                to: template)
            if position < frames.count {
                items[index].frame = frames[position]
                items[index].rotation = .zero
                items[index].slot = position
            } else {
                items[index].slot = nil
                extras.append(items[index].id)
            }
        }
        stackAtCentre(extras)
    }

    /// A photo moving from one slot to another takes the new slot's shape (a rectangle in a plain
    /// layout) when its shape was its old slot's; a shape the person chose for it stays.
    private mutating func takeSlotShape(
        _ index: Int, moving oldSlot: Int?, to newSlot: Int?, from oldTemplate: Template?, to newTemplate: Template?
    ) {
        guard case .photo = items[index].content,
            items[index].look.shape == (oldTemplate?.shape(ofSlot: oldSlot) ?? .rectangle)
        else { return }
        items[index].look.shape = newTemplate?.shape(ofSlot: newSlot) ?? .rectangle
    }

    /// Photos a layout has no slot for are laid deliberately where they are seen: a small
    /// cascade at the centre of the canvas, in front of everything, each offset from the last,
    /// rather than left in a frame from the old layout where they cover a slotted photo.
    private mutating func stackAtCentre(_ ids: [String]) {
        let side = min(canvas.width, canvas.height) * EditRules.defaultItemFraction
        let step = min(canvas.width, canvas.height) * EditRules.cascadeStepFraction
        let first = -step * Double(ids.count - 1) / 2
        for (offset, id) in ids.enumerated() {
            guard let index = zIndex(of: id) else { continue }
            var item = items.remove(at: index)
            let shift = first + step * Double(offset)
            let center = Point(x: bounds.center.x + shift, y: bounds.center.y + shift)
            // The photo keeps the shape it had, fitted in a square of the default item side.
            let aspect = item.frame.width / item.frame.height
            let size = Size(
                width: max(EditRules.minimumItemSide, aspect >= 1 ? side : side * aspect),
                height: max(EditRules.minimumItemSide, aspect >= 1 ? side / aspect : side))
            item.frame = Rect(center: center, size: size)
            item.rotation = .zero
            items.append(item)
        }
    }

    /// Slotted items follow their slots when the slots move (a new spacing, padding or canvas
    /// shape): one that filled its old slot fills the new one exactly; one the person had
    /// nudged or resized inside its slot keeps that offset and size relative to the slot, so
    /// a style change never silently undoes their adjustment.
    private mutating func reflow(from oldFrames: [Rect]?) {
        guard let template else { return }
        let frames = template.frames(for: self)
        for index in items.indices {
            guard let slot = items[index].slot else { continue }
            guard slot < frames.count else {
                items[index].slot = nil
                continue
            }
            let new = frames[slot]
            guard let oldFrames, slot < oldFrames.count, items[index].frame != oldFrames[slot],
                oldFrames[slot].width > 0, oldFrames[slot].height > 0
            else {
                items[index].frame = new
                continue
            }
            let old = oldFrames[slot]
            let (scaleX, scaleY) = (new.width / old.width, new.height / old.height)
            let frame = items[index].frame
            let moved = Rect(
                x: new.x + (frame.x - old.x) * scaleX, y: new.y + (frame.y - old.y) * scaleY,
                width: frame.width * scaleX, height: frame.height * scaleY)
            // A frame the new slot would shrink below the minimum takes the slot's own frame.
            items[index].frame =
                moved.width >= EditRules.minimumItemSide && moved.height >= EditRules.minimumItemSide ? moved : new
        }
    }

    /// Free items keep their place relative to the canvas and shrink only if they no longer fit.
    private mutating func rescaleFreeItems(to newCanvas: Size) {
        let scaleX = newCanvas.width / canvas.width
        let scaleY = newCanvas.height / canvas.height
        for index in items.indices where items[index].slot == nil {
            let frame = items[index].frame
            let fit = min(1, newCanvas.width / frame.width, newCanvas.height / frame.height)
            let size = frame.size.scaled(by: fit)
            let center = Point(x: frame.center.x * scaleX, y: frame.center.y * scaleY)
            items[index].frame = Rect(center: center, size: size)
        }
    }

    /// Where a copy goes: a step down and to the right of its original, so both show; a step
    /// back on each axis where that would take it past the canvas's edge.
    private func offsetForCopy(_ frame: Rect) -> Rect {
        let step = (min(canvas.width, canvas.height) * 0.03).rounded()
        let dx = frame.maxX + step <= canvas.width || frame.x - step < 0 ? step : -step
        let dy = frame.maxY + step <= canvas.height || frame.y - step < 0 ? step : -step
        return Rect(x: frame.x + dx, y: frame.y + dy, width: frame.width, height: frame.height)
    }

    private func validate(_ frame: Rect) throws(EditError) {
        guard [frame.x, frame.y, frame.width, frame.height].allSatisfy(\.isFinite) else {
            throw .notFinite(field: "frame")
        }
        guard frame.width >= EditRules.minimumItemSide, frame.height >= EditRules.minimumItemSide else {
            throw .frameTooSmall(width: frame.width, height: frame.height)
        }
        guard frame.width <= canvas.width * EditRules.maximumCanvasMultiple,
            frame.height <= canvas.height * EditRules.maximumCanvasMultiple
        else { throw .frameTooLarge(width: frame.width, height: frame.height) }
        guard let visible = frame.intersection(bounds), visible.width >= EditRules.minimumVisible,
            visible.height >= EditRules.minimumVisible
        else { throw .frameOffCanvas(frame) }
    }

    private func validate(_ style: Style, canvas: Size) throws(EditError) {
        if let problem = style.background.problem { throw .invalidStyle("background: \(problem)") }
        for (name, value) in [
            ("spacing", style.spacing), ("padding", style.padding), ("corner radius", style.cornerRadius),
        ] {
            guard value.isFinite, value >= 0, value <= Style.maximumLength else {
                throw .invalidStyle(
                    "\(name) must be between 0 and \(JSONValue.format(Style.maximumLength)) points, got \(JSONValue.format(value))"
                )
            }
        }
        guard let template else { return }
        let frames = template.frames(in: canvas, spacing: style.spacing, padding: style.padding)
        if frames.contains(where: {
            $0.width < EditRules.minimumItemSide || $0.height < EditRules.minimumItemSide
        }) {
            throw .invalidStyle(
                "spacing \(JSONValue.format(style.spacing)) and padding \(JSONValue.format(style.padding)) leave "
                    + "slots of \(template.name) smaller than \(JSONValue.format(EditRules.minimumItemSide)) points "
                    + "on a \(JSONValue.format(canvas.width)) × \(JSONValue.format(canvas.height)) canvas")
        }
    }

    private func validate(_ crop: Crop) throws(EditError) {
        guard (0...1).contains(crop.focus.x), (0...1).contains(crop.focus.y) else {
            throw .invalidCrop(
                "the crop focus must lie in 0…1 each way, got (\(JSONValue.format(crop.focus.x)), "
                    + "\(JSONValue.format(crop.focus.y)))")
        }
        guard Crop.zoomRange.contains(crop.zoom) else {
            throw .invalidCrop(
                "the crop zoom must be between \(JSONValue.format(Crop.zoomRange.lowerBound)) and "
                    + "\(JSONValue.format(Crop.zoomRange.upperBound)), got \(JSONValue.format(crop.zoom))")
        }
    }
}
