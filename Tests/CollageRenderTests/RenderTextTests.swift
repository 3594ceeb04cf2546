import CollageCore
import CollageRender
import Foundation
import Testing

/// Text items drawn by Pango through libvips, with the fonts the bootstrap installs.
@Suite("Rendering: text")
struct RenderTextTests {
    /// Where the ink is in a render: pixels that differ clearly from the background.
    struct Ink {
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        var count = 0
        var width: Int { maxX - minX + 1 }
        var height: Int { maxY - minY + 1 }

        init(_ bitmap: Bitmap, background: [UInt8] = [255, 255, 255], where isInk: (([UInt8]) -> Bool)? = nil) {
            for y in 0..<bitmap.height {
                for x in 0..<bitmap.width {
                    let pixel = bitmap[x, y]
                    let inked =
                        isInk?(pixel) ?? zip(pixel.prefix(3), background).contains { abs(Int($0) - Int($1)) > 60 }
                    guard inked else { continue }
                    count += 1
                    (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
                }
            }
        }
    }

    /// A white canvas with one text item, rendered at `scale`.
    func render(
        _ block: TextBlock, frame: Rect = Rect(x: 20, y: 20, width: 360, height: 60), rotation: Double = 0,
        canvas: Size = Size(width: 400, height: 300), scale: Double = 1, fitted: Bool = true
    ) throws -> Bitmap {
        let fixtures = try RenderFixtures()
        var frame = frame
        if fitted { frame.height = try CollageRenderer.fittedTextHeight(block, width: frame.width) }
        var collage = Collage(id: "t", title: "t", created: Date(), canvas: canvas)
        collage = try collage.applying([
            .addItem(id: "t", content: .text(block), frame: frame), .rotateItem(id: "t", degrees: rotation),
        ])
        return try fixtures.render(collage, "text.png", options: RenderOptions(size: .scale(scale), format: .png))
    }

    @Test func glyphsAreDrawnInsideTheFrameInTheirColour() throws {
        let red = Color(red: 200, green: 0, blue: 0)
        let bitmap = try render(TextBlock(text: "Hello", size: 40, color: red, alignment: .left))
        let ink = Ink(bitmap)
        #expect(ink.count > 300, "the word leaves ink")
        #expect(ink.minX >= 18 && ink.minX <= 30, "left-aligned at the frame's left edge: \(ink.minX)")
        #expect(ink.minY >= 18 && ink.maxY <= 90, "inside the frame, from its top: \(ink.minY)…\(ink.maxY)")
        // The most inked pixels are the colour asked for.
        var reds = 0
        for y in ink.minY...ink.maxY {
            for x in ink.minX...ink.maxX {
                let pixel = bitmap[x, y]
                if pixel[0] > 170, pixel[1] < 40, pixel[2] < 40 { reds += 1 }
            }
        }
        #expect(reds > ink.count / 3, "\(reds) of \(ink.count) inked pixels are red")
    }

    @Test func alignmentPlacesTheLinesInTheFrame() throws {
        let left = Ink(try render(TextBlock(text: "Hi", size: 40, alignment: .left)))
        let centre = Ink(try render(TextBlock(text: "Hi", size: 40, alignment: .center)))
        let right = Ink(try render(TextBlock(text: "Hi", size: 40, alignment: .right)))
        #expect(left.minX < 30)
        #expect(abs((centre.minX + centre.maxX) / 2 - 200) <= 3, "centred on the frame's centre")
        #expect(right.maxX > 370 && right.maxX <= 381)
    }

    @Test func theFrameWidthWrapsTheWordsAndTheFittedHeightFollows() throws {
        let block = TextBlock(text: "one two three four five six seven eight", size: 30)
        let wide = try CollageRenderer.fittedTextHeight(block, width: 900)
        let narrow = try CollageRenderer.fittedTextHeight(block, width: 150)
        #expect(narrow > wide * 3, "a narrow frame makes several lines: \(narrow) vs \(wide)")
        let ink = Ink(try render(block, frame: Rect(x: 100, y: 20, width: 150, height: 40)))
        #expect(ink.minX >= 99 && ink.maxX <= 251, "no line is wider than the frame: \(ink.minX)…\(ink.maxX)")
        #expect(Double(ink.height) > narrow * 0.8 && Double(ink.height) <= narrow * 1.05, "\(ink.height) vs \(narrow)")
        // Line breaks in the text are kept, and line spacing spreads the lines.
        let two = try CollageRenderer.fittedTextHeight(TextBlock(text: "a\nb", size: 30), width: 300)
        let spaced = try CollageRenderer.fittedTextHeight(TextBlock(text: "a\nb", size: 30, lineSpacing: 2), width: 300)
        #expect(spaced > two * 1.4)
    }

    @Test func theSameTextWrapsAtTheSameWordsAtAnyScale() throws {
        let block = TextBlock(text: "Summer by the sea with friends", size: 28)
        let small = Ink(try render(block, frame: Rect(x: 20, y: 20, width: 200, height: 40), scale: 1))
        let large = Ink(try render(block, frame: Rect(x: 20, y: 20, width: 200, height: 40), scale: 3))
        #expect(abs(Double(large.height) / Double(small.height) - 3) < 0.25, "\(small.height) → \(large.height)")
        #expect(abs(Double(large.width) / Double(small.width) - 3) < 0.25, "\(small.width) → \(large.width)")
    }

    @Test func aBackgroundPillSurroundsTheWords() throws {
        let block = TextBlock(
            text: "Label", size: 30, color: .white,
            background: TextBackground(color: Color(red: 0, green: 90, blue: 200), opacity: 1, padding: 12))
        let bitmap = try render(block)
        let blue = Ink(bitmap) { $0[2] > 150 && $0[0] < 60 }
        #expect(blue.count > 2_000, "the pill is drawn")
        #expect(blue.width > 60 && blue.width < 200, "it hugs the word, not the frame: \(blue.width)")
        // The white letters sit inside the pill, with the padding around them.
        var lettersInPill = 0
        for y in blue.minY...blue.maxY {
            for x in blue.minX...blue.maxX where bitmap[x, y].prefix(3).allSatisfy({ $0 > 200 }) { lettersInPill += 1 }
        }
        #expect(lettersInPill > 100, "\(lettersInPill) white pixels inside the pill")
        let outside = Ink(bitmap) { $0[2] > 150 && $0[0] < 60 }
        #expect(outside.minY > 15 && outside.minX > 15, "the pill stays around the frame")
        // A half-transparent pill lets the canvas show through.
        var faint = block
        faint.background?.opacity = 0.5
        let mixed = Ink(try render(faint)) { $0[2] > 200 && $0[0] > 100 && $0[0] < 160 }
        #expect(mixed.count > 1_000, "a 50 % pill blends with the white canvas")
    }

    @Test func anOutlineAndAShadowAreDrawnAroundTheLetters() throws {
        let plain = TextBlock(text: "Out", size: 50, color: .white)
        #expect(Ink(try render(plain)).count == 0, "white on white leaves no ink")
        var outlined = plain
        outlined.outline = TextOutline(color: Color(red: 0, green: 150, blue: 0), width: 3)
        let green = Ink(try render(outlined)) { $0[1] > 100 && $0[0] < 80 && $0[2] < 80 }
        #expect(green.count > 300, "the outline is drawn in its colour")
        var shadowed = plain
        shadowed.shadow = DropShadow(
            color: Color(red: 0, green: 0, blue: 0, alpha: 200), blur: 2, offset: Point(x: 0, y: 6))
        let shadow = Ink(try render(shadowed))
        #expect(shadow.count > 300)
        let letters = Ink(try render(TextBlock(text: "Out", size: 50, color: .black)))
        #expect(shadow.maxY > letters.maxY + 3, "the shadow falls below the letters")
    }

    @Test func aTurnedTextTurnsAboutItsFrame() throws {
        let block = TextBlock(text: "Sideways text", size: 30)
        let upright = Ink(try render(block, frame: Rect(x: 50, y: 130, width: 300, height: 40)))
        let turned = Ink(try render(block, frame: Rect(x: 50, y: 130, width: 300, height: 40), rotation: 90))
        #expect(upright.width > upright.height * 3)
        #expect(turned.height > turned.width * 3, "turned a quarter: \(turned.width) × \(turned.height)")
        #expect(abs((upright.minX + upright.maxX) / 2 - (turned.minX + turned.maxX) / 2) <= 4, "about the same centre")
    }

    @Test func emojiAreDrawnInColour() throws {
        let bitmap = try render(TextBlock(text: "😀", size: 60))
        let yellow = Ink(bitmap) { $0[0] > 200 && $0[1] > 150 && $0[2] < 90 }
        #expect(yellow.count > 300, "Noto Color Emoji draws the face yellow, not as a black outline")
    }

    @Test func hebrewReadsRightToLeft() throws {
        // One letter, a space, then a long word: right to left, the lone letter is at the right.
        let bitmap = try render(TextBlock(text: "א בבבבבבב", size: 40, alignment: .left))
        let ink = Ink(bitmap)
        var columns = [Bool](repeating: false, count: ink.width)
        for y in ink.minY...ink.maxY {
            for x in ink.minX...ink.maxX where bitmap[x, y][0] < 120 { columns[x - ink.minX] = true }
        }
        let gap = Self.widestGap(columns)
        #expect(Double(gap.center) > Double(ink.width) * 0.7, "the space is near the right end: \(gap) of \(ink.width)")
    }

    @Test func arabicLettersJoin() throws {
        // Shaped, four behs join into one word; unshaped they would stand apart.
        let joined = try render(TextBlock(text: "بببب", size: 60))
        let apart = try render(TextBlock(text: "ب ب ب ب", size: 60))
        #expect(Self.widestGap(Self.inkedColumns(joined)).length <= 2, "one connected word")
        #expect(Self.widestGap(Self.inkedColumns(apart)).length > 5, "separate letters, for contrast")
    }

    @Test func chineseIsDrawnNotTofu() throws {
        // 一 is one horizontal stroke; a missing glyph would be drawn as a tall box instead.
        let one = Ink(try render(TextBlock(text: "一", size: 80)))
        #expect(one.count > 100 && one.width > one.height * 4, "\(one.width) × \(one.height)")
        let words = Ink(try render(TextBlock(text: "你好，世界", size: 40)))
        #expect(words.count > 500 && words.width > 150)
    }

    @Test func everyCuratedFontIsInstalledAndUsed() throws {
        // Each family draws "Ag" differently from the others: a missing one would fall back.
        var drawn: [String: Int] = [:]
        for font in TextFont.catalog {
            let ink = Ink(try render(TextBlock(text: "Ag Sphinx", font: font.family, size: 40)))
            drawn[font.family] = ink.count * 1000 + ink.width
        }
        #expect(Set(drawn.values).count == TextFont.catalog.count, "\(drawn)")
    }

    @Test func hostileTextRendersOrIsRefused() throws {
        // Markup in the words is text, not markup.
        let markup = Ink(try render(TextBlock(text: "<b>&amp;</b> \"'", size: 20)))
        #expect(markup.count > 50)
        // The longest text allowed, in a wide frame, renders in bounded time.
        let long = String(repeating: "word ", count: Limits.maximumTextLength / 5)
        let ink = Ink(
            try render(
                TextBlock(text: long, size: 6), frame: Rect(x: 0, y: 0, width: 400, height: 40),
                canvas: Size(width: 400, height: 400)))
        #expect(ink.count > 1_000)
    }

    @Test func markupHiddenInsideACharacterIsStillText() throws {
        // A `<` joined to marks is part of a larger character; it must still be escaped, or
        // nested <big> tags would grow the text without limit.
        let sneaky = String(repeating: "\u{600}<big>\u{301}", count: 6) + "x"
        let ink = Ink(try render(TextBlock(text: sneaky, size: 20), frame: Rect(x: 20, y: 20, width: 360, height: 40)))
        #expect(ink.count > 0 && ink.height < 120, "drawn at its own size: \(ink.width) × \(ink.height)")
    }

    @Test func anOutlinedTextWithSeeThroughLettersStaysHollow() throws {
        let hollow = TextBlock(
            text: "O", size: 120, color: Color(red: 255, green: 255, blue: 255, alpha: 0),
            outline: TextOutline(color: .black, width: 3))
        let bitmap = try render(hollow, frame: Rect(x: 100, y: 20, width: 200, height: 150))
        let ink = Ink(bitmap)
        #expect(ink.count > 200, "the outline is drawn")
        // The middle of the O, and the inside of its stroke, stay white: an outline, not a block.
        let centre = bitmap[(ink.minX + ink.maxX) / 2, (ink.minY + ink.maxY) / 2]
        #expect(centre.prefix(3).allSatisfy { $0 > 230 }, "\(centre)")
        #expect(Double(ink.count) < Double(ink.width * ink.height) * 0.5)
    }

    @Test func aWideBlurAndAWideFrameStayWithinBounds() throws {
        let block = TextBlock(
            text: "Soft", size: 80,
            shadow: DropShadow(
                color: Color(red: 0, green: 0, blue: 0, alpha: 255), blur: 100, offset: Point(x: 0, y: 0)))
        let ink = Ink(
            try render(block, frame: Rect(x: 50, y: 50, width: 300, height: 100), canvas: Size(width: 400, height: 400))
        )
        #expect(ink.count > 0, "a faint, wide shadow")
        // A frame ten canvases wide at a large scale is drawn within Cairo's 32,767 pixels.
        let wide = try render(
            TextBlock(text: "wide", size: 100), frame: Rect(x: 0, y: 100, width: 4_000, height: 120),
            canvas: Size(width: 400, height: 400), scale: 20)
        #expect(wide.width == 8_000)
    }

    static func inkedColumns(_ bitmap: Bitmap) -> [Bool] {
        let ink = Ink(bitmap)
        var columns = [Bool](repeating: false, count: ink.width)
        for y in ink.minY...ink.maxY {
            for x in ink.minX...ink.maxX where bitmap[x, y][0] < 160 { columns[x - ink.minX] = true }
        }
        return columns
    }

    /// The longest run of columns without ink, and its centre.
    static func widestGap(_ columns: [Bool]) -> (length: Int, center: Int) {
        var best = (length: 0, center: 0)
        var start: Int?
        for (index, inked) in columns.enumerated() {
            if !inked, start == nil { start = index }
            if inked, let first = start {
                if index - first > best.length { best = (index - first, (first + index) / 2) }
                start = nil
            }
        }
        return best
    }
}
