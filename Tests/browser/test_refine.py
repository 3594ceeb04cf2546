"""The refine brush: a sticker over its photo, Erase and Restore strokes drawn with the mouse,
undo and redo, and Done, which stores the refined sticker and shows it in the item (undo brings the first
back). The preview runs the server's own arithmetic, so what Done stores is what was shown."""
import io
import os
import re

from PIL import Image
from playwright.sync_api import expect

from test_design import phone, touch  # noqa: F401 (the phone page, and a finger through DevTools)
from test_editor import ROOT, SCREENSHOTS, api, collage_with_a_lifted_sticker, edit, reopen, saved

SHOTS = os.environ.get("COLLAGE_BROWSER_SHOTS")


def collage_with_a_placed_sticker(page, title, frame, more=()):
    """A collage with a sticker lifted from its coffee photo placed as item "s1" at `frame`
    (x, y, width; its height as the sticker's), `more` edits after it, and the page reopened on it."""
    cid, sticker = collage_with_a_lifted_sticker(page, title)
    x, y, width = frame
    edit(page, cid, [
        {"op": "addItem", "id": "s1", "content": {"type": "sticker", "ref": sticker["id"]},
         "frame": {"x": x, "y": y, "width": width, "height": width * sticker["height"] / sticker["width"]}},
        *more,
    ])
    reopen(page)
    return cid, sticker


def open_refine_on_a_placed_sticker(page, title):
    """A collage with a sticker placed (see collage_with_a_placed_sticker), and the refine brush
    opened on it from its own tools, ready for strokes."""
    collage_with_a_placed_sticker(page, title, (520, 260, 300))
    page.locator(".item.sticker").click()
    page.locator("#item-tools #refine-item").click()
    expect(page.locator("#refine-done")).to_be_enabled(timeout=20000)


def sticker_item(page, cid):
    return next(i for i in api(page, f"/api/collages/{cid}")["collage"]["items"] if i["id"] == "s1")


def expect_zoom(page, times):
    """The zoom's label says the picture's size on screen, as other editors do (100 % is a
    picture pixel a screen pixel, not "fitted"), and the picture is `times` its fitted size."""
    canvas = page.locator("#refine-canvas")
    expect(canvas).to_have_attribute("data-zoom", str(times))
    shown = canvas.evaluate("c => Math.round(c.getBoundingClientRect().width / c.width * 100)")
    label = int(page.locator("#refine-zoom-value").inner_text().rstrip(" %"))
    assert abs(label - shown) <= 1, (label, shown)


def test_a_sticker_is_refined_with_the_brush_and_the_item_shows_it(page):
    cid, sticker = collage_with_a_placed_sticker(
        page, "Refine", (520, 260, 420), [{"op": "setStickerStyle", "id": "s1", "style": {"outline": 8, "shadow": False}}])
    page.locator(".item.sticker").click()
    page.click("#tab-stickers")
    page.click("#refine-sticker")
    dialog = page.locator("#refine-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#refine-done")).to_be_enabled(timeout=20000)
    canvas = page.locator("#refine-canvas")
    box = canvas.bounding_box()
    assert box["width"] > 200 and box["height"] > 120, box
    # The sticker fills the stage, over its faint photo, with the photo around it as far as the
    # brush reaches (Restore may bring back what the lift missed there): the canvas holds the
    # sticker's own pixels where the server says it lies.
    area_width, area_height = canvas.evaluate("c => [c.width, c.height]")
    at_x, at_y = map(int, canvas.get_attribute("data-sticker-at").split(","))
    assert at_x + sticker["width"] <= area_width and at_y + sticker["height"] <= area_height
    assert area_width > sticker["width"] or area_height > sticker["height"], "the brush reaches past the sticker"

    # Erase: a stroke across the middle, left to right.
    page.fill("#refine-size", "60")
    y = box["y"] + box["height"] * 0.5
    page.mouse.move(box["x"] + box["width"] * 0.15, y)
    page.mouse.down()
    for step in range(1, 11):
        page.mouse.move(box["x"] + box["width"] * (0.15 + 0.07 * step), y)
    page.mouse.up()
    expect(canvas).to_have_attribute("data-strokes", "1")
    if SCREENSHOTS:
        page.mouse.move(box["x"] + box["width"] * 0.62, box["y"] + box["height"] * 0.3)
        page.screenshot(path=str(ROOT / "docs/images/editor-refine.jpg"), type="jpeg", quality=80)
    # A second stroke, then undo: one stroke is left.
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.2)
    expect(canvas).to_have_attribute("data-strokes", "2")
    page.click("#refine-undo")
    expect(canvas).to_have_attribute("data-strokes", "1")
    # Redo paints it again (Ctrl+Shift+Z, as in the editor, or the button), undo takes it back.
    page.keyboard.press("Control+Shift+z")
    expect(canvas).to_have_attribute("data-strokes", "2")
    page.keyboard.press("Control+z")
    expect(canvas).to_have_attribute("data-strokes", "1")
    page.click("#refine-redo")
    expect(canvas).to_have_attribute("data-strokes", "2")
    page.click("#refine-undo")
    expect(canvas).to_have_attribute("data-strokes", "1")
    expect(page.locator("#refine-redo")).to_be_enabled()
    # Restore, left of the sticker's box: the photo there comes back, and the sticker grows.
    assert at_x >= 12, f"the sample sticker has room to its left: {at_x}"
    page.click("#refine-dialog [data-brush=restore]")
    page.fill("#refine-size", "16")
    page.mouse.click(box["x"] + at_x * 0.5 * box["width"] / area_width, y)
    expect(canvas).to_have_attribute("data-strokes", "2")
    expect(page.locator("#refine-redo")).to_be_disabled()
    preview = canvas.evaluate("c => Array.from(c.preview.filter((_, i) => i % 4 === 3))")
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "refine-dialog.png"))
    page.click("#refine-done")
    expect(dialog).to_be_hidden(timeout=20000)
    saved(page)
    item = sticker_item(page, cid)
    refined_id = item["content"]["ref"]
    assert refined_id != sticker["id"], "the item shows the refined copy"
    assert item["stickerStyle"]["outline"] == 8, "its style is kept"

    # The stored sticker is what the preview showed, cut down to what it keeps: its alpha is the
    # preview's, placed where their kept parts line up, with a clear band where the stroke went.
    base = page.url.split("#")[0].rstrip("/")
    stored = Image.open(io.BytesIO(page.request.get(f"{base}/api/stickers/{refined_id}/image").body())).convert("RGBA")
    shown = Image.frombytes("L", (area_width, area_height), bytes(preview))
    stored_alpha = stored.getchannel("A")
    kept, shown_kept = stored_alpha.getbbox(), shown.getbbox()
    assert kept and shown_kept
    left, top = shown_kept[0] - kept[0], shown_kept[1] - kept[1]
    assert stored.size[0] <= area_width and stored.size[1] <= area_height
    shown_part = shown.crop((left, top, left + stored.size[0], top + stored.size[1]))
    alphas, previewed = list(stored_alpha.tobytes()), list(shown_part.tobytes())
    differing = sum(1 for a, b in zip(alphas, previewed) if abs(a - b) > 1)
    assert differing <= len(alphas) // 1000, f"{differing} pixels differ between the preview and the stored sticker"
    band_y = int(area_height * 0.5) - top
    middle = [stored.getpixel((int(area_width * f) - left, band_y))[3] for f in (0.4, 0.5, 0.6)]
    assert max(middle) == 0, f"the stroke's band is clear: {middle}"
    assert left < at_x, "the sticker grew to the left, where Restore brought the photo back"
    # The item moved and resized with it: the same scale, the subject where it was.
    old_scale = 420 / sticker["width"]
    frame = item["frame"]
    assert abs(frame["width"] / stored.size[0] - old_scale) < 1e-3, frame
    assert abs(frame["x"] - (520 + (left - at_x) * old_scale)) < 0.01, frame
    assert abs(frame["y"] - (260 + (top - at_y) * old_scale)) < 0.01, frame
    # Undo in the editor brings the first sticker back.
    page.keyboard.press("Control+z")
    saved(page)
    assert sticker_item(page, cid)["content"]["ref"] == sticker["id"]


def test_the_selected_stickers_own_tools_open_the_refine_brush(page):
    # Found where the sticker is, not only in the Stickers tab: its floating tools offer Refine,
    # which a photo's do not.
    # A laptop's window, whose height the dialog fits without scrolling as a whole.
    page.set_viewport_size({"width": 1280, "height": 757})
    collage_with_a_placed_sticker(page, "Refine from the tools", (520, 260, 300))
    page.locator(".item.sticker").click()
    refine = page.locator("#item-tools #refine-item")
    expect(refine).to_be_visible()
    refine.click()
    expect(page.locator("#refine-dialog")).to_be_visible()
    expect(page.locator("#refine-done")).to_be_enabled(timeout=20000)
    # Photo (P) shows the sticker alone on the checkerboard and back: away from the sticker the
    # canvas holds nothing then, and the faint photo again after.
    canvas = page.locator("#refine-canvas")
    corner = "c => c.getContext('2d').getImageData(1, 1, 1, 1).data[3]"
    assert canvas.evaluate(corner) > 0, "the photo shows round the sticker"
    # Round the sticker the photo is grey and dimmed, whatever its colours, so a red or pink
    # part the sticker keeps is told from what it leaves out (a pink tint hid a kept red rib).
    red, green, blue, _ = canvas.evaluate("c => Array.from(c.getContext('2d').getImageData(1, 1, 1, 1).data)")
    assert max(red, green, blue) - min(red, green, blue) <= 16 and max(red, green, blue) < 160, (red, green, blue)
    # The kept part's edge is drawn in cyan over the photo (a grey animal's fur looked like the
    # dimmed photo round it), and only there: the sticker alone needs none.
    cyan = """c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 60 && d[i + 1] > 160 && d[i + 2] > 220 && d[i + 3] > 200) n++;
      return n; }"""
    assert canvas.evaluate(cyan) > 100, "the edge shows round the sticker"
    page.click("#refine-photo")
    expect(page.locator("#refine-photo")).to_have_attribute("aria-pressed", "false")
    assert canvas.evaluate(corner) == 0, "the sticker alone"
    assert canvas.evaluate(cyan) < 20, "no edge drawn over the checkerboard"
    page.keyboard.press("p")
    expect(page.locator("#refine-photo")).to_have_attribute("aria-pressed", "true")
    assert canvas.evaluate(corner) > 0
    overflow = page.evaluate("(() => { const d = document.getElementById('refine-dialog'); return d.scrollHeight - d.clientHeight; })()")
    assert overflow <= 1, f"the dialog scrolls by {overflow} px"
    stage = page.locator("#refine-stage").bounding_box()
    assert stage["height"] >= 300, f"the picture keeps most of the height: {stage}"
    page.click("#refine-cancel")
    expect(page.locator("#refine-dialog")).to_be_hidden()
    page.locator(".item.photo").first.click()
    expect(page.locator("#item-tools")).to_be_visible()
    expect(refine).to_be_hidden()


def test_the_brush_shows_where_it_works_exactly_and_where_it_keeps_to_edges(page):
    # One ring promised the brush's whole width, yet its outer half spares what is unlike the
    # colour under its centre: a stroke a little off a leaf's rib left a sliver of it. A solid
    # ring shows the inner half, a dashed one the outer, and a cross the centre.
    open_refine_on_a_placed_sticker(page, "Rings")
    page.fill("#refine-size", "80")
    stage = page.locator("#refine-stage").bounding_box()
    x, y = stage["x"] + stage["width"] / 2, stage["y"] + stage["height"] / 2
    page.mouse.move(x, y)
    page.mouse.move(x + 1, y)
    cursor = page.locator("#refine-cursor")
    view = cursor.bounding_box()
    drawn = """(c, [x, y]) => {
      const ratio = c.width / c.clientWidth;
      const d = c.getContext('2d').getImageData(Math.round(x * ratio) - 2, Math.round(y * ratio) - 2, 5, 5).data;
      let most = 0; for (let i = 3; i < d.length; i += 4) most = Math.max(most, d[i]); return most; }"""
    at = lambda dx, dy: cursor.evaluate(drawn, [x + 1 - view["x"] + dx, y - view["y"] + dy])
    assert at(0, 0) > 0, "a cross at the centre"
    assert at(20, 0) > 0 and at(0, -20) > 0, "a ring at half the brush's radius"
    assert at(40, 0) > 0 or at(0, 40) > 0, "a ring at its radius"
    assert at(30, 0) == 0, "nothing between the rings"
    page.click("#refine-cancel")


def test_a_slow_pinch_keeps_the_picture_under_the_fingers(page):
    # Each step of a pinch rounded the scroll to a whole pixel and started from there: over a
    # slow pinch the picture drifted away from the fingers (60 px at 3x on a phone, the stem out
    # of view).
    open_refine_on_a_placed_sticker(page, "Slow pinch")
    canvas = page.locator("#refine-canvas")
    box = canvas.bounding_box()
    # A point a third of the way into the picture, between the fingers throughout.
    x, y = box["x"] + box["width"] / 3, box["y"] + box["height"] / 3
    point = ((x - box["x"]) / box["width"], (y - box["y"]) / box["height"])
    canvas.evaluate("""(c, [x, y]) => {
      const fire = (type, id, px, py) => c.dispatchEvent(new PointerEvent(type, {
        pointerId: id, pointerType: 'touch', clientX: px, clientY: py, bubbles: true, isPrimary: id === 31 }));
      fire('pointerdown', 31, x - 10, y - 7);
      fire('pointerdown', 32, x + 10, y + 7);
      // Spread slowly, a third of a pixel a step, to three times as far apart.
      for (let step = 1; step <= 60; step++) {
        const spread = 1 + step / 30;
        fire('pointermove', 31, x - 10 * spread, y - 7 * spread);
        fire('pointermove', 32, x + 10 * spread, y + 7 * spread);
      }
      fire('pointerup', 32, x + 30, y + 21);
      fire('pointerup', 31, x - 30, y - 21);
    }""", [x, y])
    expect_zoom(page, 3)
    after = canvas.bounding_box()
    under = ((x - after["x"]) / after["width"], (y - after["y"]) / after["height"])
    drift = (abs(under[0] - point[0]) * after["width"], abs(under[1] - point[1]) * after["height"])
    assert drift[0] <= 2 and drift[1] <= 2, f"the picture drifted {drift} px from the fingers"
    page.click("#refine-cancel")


def test_a_refined_sticker_never_shows_the_old_drawing_stretched_into_its_new_frame(page):
    # Its frame changes shape with the refined sticker; until the new drawing came, the old one
    # stood in stretched to the new frame (for up to 2 s after Done). The plain new sticker
    # stands in now. The drawings are held back here, so the stand-in is what shows.
    open_refine_on_a_placed_sticker(page, "No stretched flash")
    canvas = page.locator("#refine-canvas")
    box = canvas.bounding_box()
    # Erase the sticker's right third: the refined sticker is narrower than the first.
    page.fill("#refine-size", "120")
    page.mouse.move(box["x"] + box["width"] * 0.8, box["y"] + 5)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.8, box["y"] + box["height"] - 5, steps=8)
    page.mouse.up()
    expect(canvas).to_have_attribute("data-strokes", "1")
    shown = page.locator(".item.sticker img").first
    expect(shown).to_have_attribute("src", re.compile(r"^blob:"), timeout=10000)
    old_drawing = shown.get_attribute("src")
    page.route(re.compile(r"/items/[^/]+/drawn"), lambda route: route.abort())
    page.click("#refine-done")
    expect(page.locator(".toast", has_text="Sticker refined")).to_be_visible(timeout=20000)
    for _ in range(10):
        assert shown.get_attribute("src") != old_drawing, "the old drawing stands in for the refined sticker"
        page.wait_for_timeout(100)
    page.unroute(re.compile(r"/items/[^/]+/drawn"))


def test_escape_asks_before_throwing_strokes_away_and_enter_keeps_them(page):
    # The question's focus was on Discard: Escape, then Enter, threw the strokes away.
    open_refine_on_a_placed_sticker(page, "Keep the strokes")
    canvas = page.locator("#refine-canvas")
    box = canvas.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(canvas).to_have_attribute("data-strokes", "1")
    page.keyboard.press("Escape")
    expect(page.locator("#ask-dialog")).to_be_visible()
    expect(page.locator("#ask-cancel")).to_have_text("Keep editing")
    expect(page.locator("#ask-cancel")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#ask-dialog")).to_be_hidden()
    expect(page.locator("#refine-dialog")).to_be_visible()
    expect(canvas).to_have_attribute("data-strokes", "1")
    page.keyboard.press("Escape")
    page.click("#ask-confirm")
    expect(page.locator("#refine-dialog")).to_be_hidden()


def test_a_refined_sticker_keeps_its_place_in_a_turned_and_flipped_item(page):
    # A 400 × 200 sticker shown at half size in a frame turned a quarter clockwise; refining it
    # grew it 40 px to the left. In the item's own frame the new box reaches 20 pt further left,
    # so its centre moves 10 pt along the item's own x axis: up the screen once turned (and down
    # when the item is also flipped left to right).
    frames = page.evaluate("""async () => {
      const { refinedFrame } = await import('/static/refine.js');
      const item = { frame: { x: 100, y: 100, width: 200, height: 100 }, rotation: 90, look: {} };
      const refined = { width: 440, height: 200, offset: [-40, 0] };
      return [
        refinedFrame(item, [400, 200], refined),
        refinedFrame({ ...item, look: { flipHorizontal: true } }, [400, 200], refined),
        refinedFrame({ ...item, rotation: 0 }, [400, 200], refined),
        // A square frame letterboxes the 2:1 sticker (50 pt above and below it).
        refinedFrame({ ...item, rotation: 0, frame: { x: 100, y: 100, width: 200, height: 200 } }, [400, 200], refined),
        // Erased down to a 20 × 10 px corner: 20 pt on its shorter side, the least an item has.
        refinedFrame({ ...item, rotation: 0 }, [400, 200], { width: 20, height: 10, offset: [100, 50] }),
      ];
    }""")
    turned, flipped, upright, letterboxed, tiny = frames
    assert turned == {"x": 90, "y": 90, "width": 220, "height": 100}, turned
    assert flipped == {"x": 90, "y": 110, "width": 220, "height": 100}, flipped
    assert upright == {"x": 80, "y": 100, "width": 220, "height": 100}, upright
    assert letterboxed == {"x": 80, "y": 150, "width": 220, "height": 100}, letterboxed
    assert tiny == {"x": 135, "y": 117.5, "width": 40, "height": 20}, tiny


def test_the_refine_brush_zooms_in_and_moves_about_for_fine_work(page):
    """Zoomed in, the stage scrolls, the point under its centre stays put, Move drags the
    picture without painting, a stroke lands on the picture's pixel under the pointer with a
    brush as fine as the zoom makes it, and the zoom stops at 4 screen pixels a picture pixel."""
    cid, sticker = collage_with_a_placed_sticker(page, "Zoom", (520, 260, 420))
    page.locator(".item.sticker").click()
    page.click("#tab-stickers")
    page.click("#refine-sticker")
    expect(page.locator("#refine-done")).to_be_enabled(timeout=20000)
    canvas = page.locator("#refine-canvas")
    stage = page.locator("#refine-stage")
    fitted = canvas.bounding_box()
    expect_zoom(page, 1)
    assert page.locator("#refine-zoom-out").is_disabled()
    assert not stage.evaluate("s => s.scrollWidth > s.clientWidth + 1"), "the fitted picture does not scroll"

    # The stage's centre is a point of the picture; zoomed in twice, the same point stays there.
    view = stage.bounding_box()
    centre = (view["x"] + view["width"] / 2, view["y"] + view["height"] / 2)
    point = ((centre[0] - fitted["x"]) / fitted["width"], (centre[1] - fitted["y"]) / fitted["height"])
    page.click("#refine-zoom-in")
    expect_zoom(page, 2)
    zoomed = canvas.bounding_box()
    assert abs(zoomed["width"] - 2 * fitted["width"]) <= 2, (fitted, zoomed)
    assert stage.evaluate("s => s.scrollWidth > s.clientWidth + 1 && s.scrollHeight > s.clientHeight + 1")
    still = ((centre[0] - zoomed["x"]) / zoomed["width"], (centre[1] - zoomed["y"]) / zoomed["height"])
    assert abs(still[0] - point[0]) < 0.01 and abs(still[1] - point[1]) < 0.01, (point, still)

    # Move drags the picture and paints nothing.
    page.click("#refine-dialog [data-brush=move]")
    left = stage.evaluate("s => s.scrollLeft")
    page.mouse.move(centre[0], centre[1])
    page.mouse.down()
    page.mouse.move(centre[0] - 60, centre[1], steps=4)
    page.mouse.up()
    assert abs(stage.evaluate("s => s.scrollLeft") - (left + 60)) <= 1
    expect(canvas).to_have_attribute("data-strokes", "0")

    # Erase at the centre: the preview is cleared at the picture's pixel under the pointer, and a
    # brush of the slider's 12 screen pixels is a few picture pixels across at 200 %.
    page.click("#refine-dialog [data-brush=erase]")
    page.fill("#refine-size", "12")
    box = canvas.bounding_box()
    width, height = canvas.evaluate("c => [c.width, c.height]")
    x = round((centre[0] - box["x"]) * width / box["width"])
    y = round((centre[1] - box["y"]) * height / box["height"])
    alpha = lambda px, py: canvas.evaluate(f"c => c.preview[({py} * c.width + {px}) * 4 + 3]")
    assert alpha(x, y) > 0, "the centre of the picture is sticker"
    page.mouse.click(*centre)
    expect(canvas).to_have_attribute("data-strokes", "1")
    assert alpha(x, y) < alpha(x, y - 12) or alpha(x, y) == 0, (alpha(x, y), alpha(x, y - 12))
    assert alpha(x, y - 12) > 0, "the stroke is as small as the zoom makes it"
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "refine-zoomed.png"))
    # Further in, the zoom stops where a picture pixel is 4 screen pixels.
    for _ in range(4):
        if page.locator("#refine-zoom-in").is_disabled():
            break
        page.click("#refine-zoom-in")
    assert page.locator("#refine-zoom-in").is_disabled()
    width_now = canvas.bounding_box()["width"]
    assert abs(width_now - 4 * width) <= 2, (width_now, width)
    # Fit pressed from the keyboard disables itself, yet the keys still reach the dialog.
    page.focus("#refine-zoom-fit")
    page.keyboard.press("Enter")
    expect_zoom(page, 1)
    assert abs(canvas.bounding_box()["width"] - fitted["width"]) <= 1
    page.keyboard.press("+")
    expect_zoom(page, 2)
    # Even with the focus on the page, no key reaches the collage behind the dialog: Delete and
    # ] (turn) leave the sticker as it is.
    before = sticker_item(page, cid)
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Delete")
    page.keyboard.press("]")
    page.wait_for_timeout(500)
    assert sticker_item(page, cid) == before
    page.focus("#refine-stage")

    # Space held moves the picture and paints nothing; on release the brush is back.
    left, top = stage.evaluate("s => [s.scrollLeft, s.scrollTop]")
    page.keyboard.down(" ")
    page.mouse.move(centre[0], centre[1])
    page.mouse.down()
    page.mouse.move(centre[0] - 40, centre[1] - 30, steps=4)
    page.mouse.up()
    page.keyboard.up(" ")
    moved = stage.evaluate("s => [s.scrollLeft, s.scrollTop]")
    assert abs(moved[0] - left - 40) <= 1 and abs(moved[1] - top - 30) <= 1, (left, top, moved)
    expect(canvas).to_have_attribute("data-strokes", "1")
    expect(page.locator("#refine-dialog [data-brush=erase]")).to_have_attribute("aria-pressed", "true")

    # Two fingers spread apart zoom in about their midpoint, and paint nothing.
    page.click("#refine-zoom-fit")
    box = canvas.bounding_box()
    mid = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    canvas.evaluate("""(c, [x, y]) => {
      const fire = (type, id, px) => c.dispatchEvent(new PointerEvent(type, {
        pointerId: id, pointerType: 'touch', clientX: px, clientY: y, bubbles: true, isPrimary: id === 21 }));
      fire('pointerdown', 21, x - 20);
      fire('pointerdown', 22, x + 20);
      for (let step = 1; step <= 5; step++) { fire('pointermove', 21, x - 20 - 4 * step); fire('pointermove', 22, x + 20 + 4 * step); }
      fire('pointerup', 22, x + 40);
      fire('pointermove', 21, x - 90);
      fire('pointerup', 21, x - 90);
    }""", [mid[0], mid[1]])
    # Twice as far apart: twice the size.
    expect_zoom(page, 2)
    expect(canvas).to_have_attribute("data-strokes", "1")
    page.click("#refine-cancel")


def drag_a_finger(page, x, y):
    """One finger from (x, y) 35 px left and 28 up, quickly, as a flick that could start a fling."""
    touch(page, "touchStart", [(x, y)])
    for step in range(1, 8):
        touch(page, "touchMove", [(x - 5 * step, y - 4 * step)])
    touch(page, "touchEnd", [])


def test_on_a_phone_a_tool_tapped_just_after_a_drag_takes(phone):
    # A quick drag on the canvas or in the refine picture, then at once a tap on a tool: the tap
    # is a tap. It was swallowed (as stopping a fling of the page) every time, on both.
    page = phone
    cid, sticker = collage_with_a_placed_sticker(page, "Tap after drag", (300, 200, 500))
    page.locator(".item.sticker").tap()
    flip = page.locator("#flip-item")
    for flipped in ("true", "false"):
        box = page.locator(".item.sticker").bounding_box()
        drag_a_finger(page, box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        flip.tap()
        expect(flip).to_have_attribute("aria-pressed", flipped, timeout=1500)
    page.locator("#refine-item").tap()
    expect(page.locator("#refine-done")).to_be_enabled(timeout=20000)
    # The dialog fits the phone, Undo and Redo side by side, the picture the widest part.
    assert page.evaluate("(() => { const d = document.getElementById('refine-dialog'); return d.scrollHeight <= d.clientHeight + 1; })()")
    undo, redo = page.locator("#refine-undo").bounding_box(), page.locator("#refine-redo").bounding_box()
    assert abs(undo["y"] - redo["y"]) < 2, (undo, redo)
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "refine-phone.png"))
    page.locator("#refine-zoom-in").tap()
    for brush in ("move", "restore", "move", "erase"):
        stage = page.locator("#refine-stage").bounding_box()
        if brush != "move":
            drag_a_finger(page, stage["x"] + stage["width"] / 2, stage["y"] + stage["height"] / 2)
        button = page.locator(f"#refine-dialog [data-brush={brush}]")
        button.tap()
        expect(button).to_have_attribute("aria-pressed", "true", timeout=1500)
