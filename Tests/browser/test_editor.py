"""Browser tests: Debian's chromium, driven by Playwright, against the real `collage serve`.

Run by `make test` (scripts/browser-tests). With COLLAGE_SCREENSHOTS=1 they also refresh the
README's screenshots in docs/images.
"""
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageStat
from playwright.sync_api import sync_playwright, expect

ROOT = Path(__file__).resolve().parents[2]
COLLAGE = ROOT / ".build" / "debug" / "collage"
SAMPLES = ROOT / "samples"
SCREENSHOTS = os.environ.get("COLLAGE_SCREENSHOTS") == "1"


def saved(page):
    expect(page.locator("#status")).to_have_text("All changes saved", timeout=20000)


def api(page, path):
    response = page.request.get(page.url.split("#")[0].rstrip("/") + path)
    assert response.ok, response.text()
    return response.json()


def collage_id(page):
    return page.url.split("#/c/")[1]


def edit(page, cid, edits):
    """Applies edits through the API as the page does (token, current version); returns the document."""
    base = page.url.split("#")[0].rstrip("/")
    token = api(page, "/api/session")["token"]
    version = api(page, f"/api/collages/{cid}")["version"]
    response = page.request.post(
        f"{base}/api/collages/{cid}/edits", data=json.dumps({"version": version, "edits": edits}),
        headers={"Content-Type": "application/json", "X-Collage-Token": token})
    assert response.ok, response.text()
    return response.json()


def reopen(page):
    page.reload()
    expect(page.locator("#editor-view")).to_be_visible()
    saved(page)
    wait_for_images(page)


def wait_for_images(page):
    """The canvas at rest: every image loaded, and every photo cropped as exports crop it (a photo
    whose subject the server is still finding is centred until it is found, a few seconds)."""
    expect(page.locator("#canvas:not([data-focus-pending]), #canvas[data-focus-pending='0']")).to_have_count(
        1, timeout=60000)
    for _ in range(200):
        if page.evaluate("[...document.querySelectorAll('#canvas img')].every(i => i.complete && i.naturalWidth > 0)"):
            return
        page.wait_for_timeout(50)
    raise AssertionError("the canvas images did not load")


def canvas_shot(page):
    """Exactly the canvas, at rest, as RGB: cut from a page screenshot by the canvas's own box (an
    element screenshot rounds a fractional box outwards and shows it a pixel or two larger)."""
    # Escape lets go of the selection (its handles and floating tools are not the collage's),
    # but not from inside a field, which keeps the key for itself.
    page.evaluate("document.activeElement?.blur()")
    page.keyboard.press("Escape")
    wait_for_images(page)
    # Messages in the corner are the page's, not the collage's: out of the picture.
    page.evaluate("document.querySelectorAll('.toast').forEach((toast) => toast.remove())")
    # So are the empty frames' "+" placeholders: the export leaves an empty frame as background.
    # (The class stays on the canvas through redraws, which replace the placeholders.)
    page.evaluate("document.getElementById('canvas').classList.add('bare')")
    # The canvas is fitted again whenever the stage changes size: wait until it stands still.
    box = None
    for _ in range(50):
        page.wait_for_timeout(150)
        now = page.locator("[data-role=canvas]").bounding_box()
        if now == box:
            break
        box = now
    left, top = round(box["x"]), round(box["y"])
    return Image.open(io.BytesIO(page.screenshot())).convert("RGB").crop(
        (left, top, left + round(box["width"]), top + round(box["height"])))


def export_png(page, size):
    """The export, as the export dialog downloads it: PNG, `size` pixels on the long side."""
    page.click("#export-button")
    page.select_option("#export-form select[name=format]", "png")
    page.select_option("#export-form select[name=sizeKind]", "size")
    page.fill("#export-form input[name=size]", str(size))
    with page.expect_download() as download:
        page.click("#export-download")
    exported = Image.open(download.value.path())
    exported.load()
    page.keyboard.press("Escape")
    return exported


def canvas_and_export(page):
    """A screenshot of exactly the canvas and the export at the same pixel size, as RGB images."""
    shot = canvas_shot(page)
    exported = export_png(page, max(shot.size)).convert("RGB")
    assert abs(exported.size[0] - shot.size[0]) <= 1 and abs(exported.size[1] - shot.size[1]) <= 1
    return shot, exported.resize(shot.size)


def new_collage(page, title="Browser test", layout="grid2x2"):
    page.fill("#create-form input[name=title]", title)
    page.select_option("#create-template", layout)
    page.click("#create-form button[type=submit]")
    expect(page.locator("#editor-view")).to_be_visible()
    saved(page)


def add_photos(page, names):
    page.set_input_files("#file-input", [str(SAMPLES / name) for name in names])
    expect(page.locator(".item")).to_have_count(len(names), timeout=30000)
    saved(page)



def test_library_create_rename_duplicate_delete(page):
    expect(page.locator("#empty-library")).to_be_visible()
    new_collage(page, "First")
    assert api(page, f"/api/collages/{collage_id(page)}")["collage"]["template"] == "grid2x2"
    expect(page.locator("#status")).not_to_be_empty()
    page.click(".brand")
    expect(page.locator(".collage-card")).to_have_count(1)
    # The editor's last word was about a collage no longer open ("Exported" stayed on).
    expect(page.locator("#status")).to_be_empty()
    # Styled dialogs, not the browser's prompt and confirm (any of those would fail the test).
    page.on("dialog", lambda dialog: pytest.fail(f"a browser pop-up: {dialog.message}"))
    page.click("button[aria-label='Rename First']")
    ask = page.locator("#ask-dialog")
    expect(ask).to_be_visible()
    expect(page.locator("#ask-input")).to_be_focused()
    page.fill("#ask-input", "   ")
    page.keyboard.press("Enter")
    expect(page.locator("#ask-error")).to_have_text("A title cannot be empty.")
    page.fill("#ask-input", "Renamed")
    page.keyboard.press("Enter")
    expect(ask).to_be_hidden()
    expect(page.locator(".collage-card .title")).to_have_text("Renamed")
    page.click("button[aria-label='Duplicate Renamed']")
    expect(page.locator(".collage-card")).to_have_count(2)
    # Delete takes the card away at once and offers Undo; Undo brings it back untouched.
    page.click("button[aria-label='Delete Renamed copy']")
    expect(page.locator(".collage-card")).to_have_count(1)
    undo = page.locator(".toast", has_text="Deleted “Renamed copy”").locator(".toast-action")
    expect(undo).to_have_text("Undo")
    undo.click()
    expect(page.locator(".collage-card")).to_have_count(2)
    assert len(api(page, "/api/collages")) == 2
    # Left alone, the message goes and the collage is deleted in the library.
    page.click("button[aria-label='Delete Renamed copy']")
    expect(page.locator(".collage-card")).to_have_count(1)
    for _ in range(150):
        if len(api(page, "/api/collages")) == 1:
            break
        page.wait_for_timeout(100)
    assert [c["title"] for c in api(page, "/api/collages")] == ["Renamed"]
    page.reload()
    expect(page.locator(".collage-card")).to_have_count(1)
    expect(page.locator("#create-form input[name=title]")).to_have_value("")


def test_drag_resize_rotate_undo_redo_and_reload(page):
    new_collage(page, layout="grid2x2")
    add_photos(page, ["coffee.png", "chelsea.png"])
    cid = collage_id(page)
    before = api(page, f"/api/collages/{cid}")["collage"]["items"][0]["frame"]
    item = page.locator(".item").first
    box = item.bounding_box()
    scale = box["width"] / before["width"]
    # Drag the first photo 60 px right and 40 px down, onto empty canvas.
    page.mouse.move(box["x"] + 20, box["y"] + 20)
    page.mouse.down()
    page.mouse.move(box["x"] + 50, box["y"] + 40, steps=4)
    page.mouse.move(box["x"] + 80, box["y"] + 60, steps=4)
    page.mouse.up()
    saved(page)
    after = api(page, f"/api/collages/{cid}")["collage"]["items"][0]
    assert abs(after["frame"]["x"] - (before["x"] + 60 / scale)) < 2
    assert abs(after["frame"]["y"] - (before["y"] + 40 / scale)) < 2
    assert after.get("slot") == 0, "a short drag (the centre still in the slot) keeps the photo in its slot"

    # Resize with the corner handle.
    handle = page.locator(".selection .handle.resize")
    hb = handle.bounding_box()
    page.mouse.move(hb["x"] + 7, hb["y"] + 7)
    page.mouse.down()
    page.mouse.move(hb["x"] + 57, hb["y"] + 37, steps=5)
    page.mouse.up()
    saved(page)
    resized = api(page, f"/api/collages/{cid}")["collage"]["items"][0]["frame"]
    assert abs(resized["width"] - (before["width"] + 50 / scale)) < 5

    # Rotate with the handle below the photo: drag it round to the left of the centre, a
    # quarter turn clockwise.
    rotate = page.locator(".selection .handle.rotate")
    rb = rotate.bounding_box()
    ib = page.locator(".selection").bounding_box()
    cx, cy = ib["x"] + ib["width"] / 2, ib["y"] + ib["height"] / 2
    page.mouse.move(rb["x"] + 7, rb["y"] + 7)
    page.mouse.down()
    page.mouse.move(cx - 100, cy + 5, steps=6)
    page.mouse.move(cx - 200, cy, steps=6)
    page.mouse.up()
    saved(page)
    rotated = api(page, f"/api/collages/{cid}")["collage"]["items"][0]["rotation"]
    assert abs(rotated - 90) < 3, rotated

    # Undo the rotation, then redo it, from the keyboard.
    page.locator("#canvas").focus()
    page.keyboard.press("Control+z")
    saved(page)
    assert api(page, f"/api/collages/{cid}")["collage"]["items"][0]["rotation"] == 0
    page.keyboard.press("Control+Shift+z")
    saved(page)
    assert abs(api(page, f"/api/collages/{cid}")["collage"]["items"][0]["rotation"] - 90) < 3

    # Reload: exactly what was saved.
    saved_doc = api(page, f"/api/collages/{cid}")["collage"]
    page.reload()
    expect(page.locator(".item")).to_have_count(2)
    style = page.locator(".item").first.get_attribute("style")
    assert "rotate(" in style and "rotate(0deg)" not in style
    assert api(page, f"/api/collages/{cid}")["collage"] == saved_doc
    # The history is the library's: after the reload, Undo still takes the rotation back.
    expect(page.locator("#undo")).to_be_enabled()
    page.locator("#canvas").focus()
    page.keyboard.press("Control+z")
    saved(page)
    assert api(page, f"/api/collages/{cid}")["collage"]["items"][0]["rotation"] == 0


def test_keyboard_layout_picker_and_swap(page):
    new_collage(page, layout="strip")
    add_photos(page, ["coffee.png", "chelsea.png", "rocket.jpg"])
    cid = collage_id(page)
    doc = api(page, f"/api/collages/{cid}")["collage"]
    first_ref = doc["items"][0]["content"]["ref"]
    # Drag the first photo onto the second: they swap contents and keep their slots.
    a = page.locator(".item").nth(0).bounding_box()
    b = page.locator(".item").nth(1).bounding_box()
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=8)
    page.mouse.up()
    saved(page)
    swapped = api(page, f"/api/collages/{cid}")["collage"]["items"]
    assert swapped[1]["content"]["ref"] == first_ref and swapped[0]["slot"] == 0
    # Keyboard alone: Tab reaches the items, arrows nudge, ] rotates, + grows, Delete removes.
    page.locator(".item").nth(2).focus()
    before = api(page, f"/api/collages/{cid}")["collage"]["items"][2]
    page.keyboard.press("ArrowRight")
    saved(page)
    page.keyboard.press("]")
    saved(page)
    page.keyboard.press("=")
    saved(page)
    after = api(page, f"/api/collages/{cid}")["collage"]["items"][2]
    assert after["frame"]["x"] < before["frame"]["x"] + 1, "grown about its centre after a 1-point nudge"
    assert after["rotation"] == 5 and after["frame"]["width"] > before["frame"]["width"]
    # − shrinks it in proportion down to the least side (20 points); the short side stopping
    # alone there made the photo another shape.
    for _ in range(70):
        page.keyboard.press("-")
    saved(page)
    least = api(page, f"/api/collages/{cid}")["collage"]["items"][2]["frame"]
    assert abs(min(least["width"], least["height"]) - 20) < 0.5, least
    ratio = after["frame"]["width"] / after["frame"]["height"]
    assert abs(least["width"] / least["height"] - ratio) < 0.05 * ratio, (least, after["frame"])
    page.keyboard.press("Delete")
    saved(page)
    assert len(api(page, f"/api/collages/{cid}")["collage"]["items"]) == 2
    # The layout sheet applies a template.
    page.click("#tab-layouts")
    page.click("button[aria-label^='Grid,']")
    saved(page)
    assert api(page, f"/api/collages/{cid}")["collage"]["template"] == "grid2x2"


@pytest.mark.unlocked
def test_export_matches_the_canvas(page):
    new_collage(page, layout="magazine")
    add_photos(page, ["astronaut.png", "coffee.png", "chelsea.png"])
    page.locator("#canvas").focus()
    page.evaluate("document.querySelectorAll('.toast').forEach((toast) => toast.remove())")
    page.wait_for_timeout(500)
    shot = canvas_shot(page)
    page.click("#export-button")
    page.select_option("#export-form select[name=format]", "png")
    page.select_option("#export-form select[name=sizeKind]", "size")
    page.fill("#export-form input[name=size]", str(max(shot.size)))
    expect(page.locator("#export-pixels")).to_contain_text(f"{shot.size[0]} × {shot.size[1]}")
    # The size shown is the renderer's answer, print sizes and refusals included.
    page.select_option("#export-form select[name=sizeKind]", "print")
    page.select_option("#export-form select[name=paper]", "custom")
    page.fill("#export-form input[name=print]", "6x4in@300")
    expect(page.locator("#export-pixels")).to_contain_text("at 300 DPI")
    page.fill("#export-form input[name=print]", "6x4parsecs")
    expect(page.locator("#export-pixels")).to_contain_text("print")
    page.select_option("#export-form select[name=sizeKind]", "size")
    expect(page.locator("#export-pixels")).to_contain_text(f"{shot.size[0]} × {shot.size[1]}")
    # While it renders, the dialog shows a progress bar and says what it is making.
    page.evaluate("""() => { window.exportProgress = []; new MutationObserver(() => {
        const box = document.getElementById('export-progress');
        if (!box.hidden) window.exportProgress.push(document.getElementById('export-progress-text').textContent);
    }).observe(document.getElementById('export-progress'), { attributes: true, subtree: true, childList: true }); }""")
    with page.expect_download() as download:
        page.click("#export-download")
    exported = Image.open(download.value.path()).convert("RGB")
    expect(page.locator("#export-dialog")).to_be_hidden()
    assert any(f"Rendering {shot.size[0]} × {shot.size[1]} px" in text for text in page.evaluate("window.exportProgress"))
    assert abs(exported.size[0] - shot.size[0]) <= 1 and abs(exported.size[1] - shot.size[1]) <= 1
    exported = exported.resize(shot.size)
    difference = ImageStat.Stat(ImageChops.difference(exported, shot)).mean
    assert max(difference) < 12, f"mean difference per channel {difference}"
    if SCREENSHOTS:
        page.keyboard.press("Escape")
        page.locator(".item").first.click()
        page.screenshot(path=str(ROOT / "docs/images/editor.jpg"), type="jpeg", quality=80)
        page.click("#tab-layouts")
        page.wait_for_timeout(800)  # the previews' photos load
        page.screenshot(path=str(ROOT / "docs/images/editor-layouts.jpg"), type="jpeg", quality=80)
        page.click("#tab-photos")
        page.click(".brand")
        thumbnail = page.locator(".collage-card img")
        expect(thumbnail).to_be_visible()
        for _ in range(100):
            if thumbnail.evaluate("image => image.complete && image.naturalWidth > 0"):
                break
            page.wait_for_timeout(100)
        page.screenshot(path=str(ROOT / "docs/images/editor-library.jpg"), type="jpeg", quality=80)


def test_lift_subject(page):
    session = api(page, "/api/session")
    if not session["stickers"]:
        pytest.skip("the subject model is not installed (scripts/fetch-model)")
    new_collage(page, layout="sideBySide")
    add_photos(page, ["chelsea.png", "coffee.png"])
    cid = collage_id(page)
    photo_item = api(page, f"/api/collages/{cid}")["collage"]["items"][0]
    edit(page, cid, [{"op": "rotateItem", "id": photo_item["id"], "degrees": -12}])
    reopen(page)
    photo = page.locator(".item").first
    photo.click()
    page.click("#lift")
    expect(page.locator("#status")).to_contain_text("Click the subject")
    # Lift mode is plain to see: a hint beside the photo, the photo marked, the others dimmed.
    expect(page.locator("#mode-hint")).to_be_visible()
    expect(page.locator("#mode-hint")).to_contain_text("Esc cancels")
    # Off the photo's middle, where the subject to click is (a photo as tall as the stage leaves
    # the hint only its edge).
    hint, shown = page.locator("#mode-hint").bounding_box(), photo.bounding_box()
    middle = (shown["x"] + shown["width"] / 2, shown["y"] + shown["height"] / 2)
    assert not (hint["x"] <= middle[0] <= hint["x"] + hint["width"] and hint["y"] <= middle[1] <= hint["y"] + hint["height"]), (hint, shown)
    expect(photo).to_have_class(re.compile(r"\blift-target\b"))
    page.wait_for_timeout(400)  # the dimming fades in
    assert page.evaluate("getComputedStyle(document.querySelectorAll('.item')[1]).opacity") == "0.35"
    box = photo.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.locator(".particle").first).to_be_attached()
    expect(page.locator("#mode-hint")).to_be_hidden()
    if SCREENSHOTS:
        page.wait_for_timeout(250)
        page.screenshot(path=str(ROOT / "docs/images/editor-lifting.jpg"), type="jpeg", quality=80)
    expect(page.locator(".item.sticker")).to_have_count(1, timeout=30000)
    saved(page)
    items = api(page, f"/api/collages/{cid}")["collage"]["items"]
    sticker = items[-1]
    assert sticker["content"]["type"] == "sticker"
    # It lands turned as its photo, offset from it (not a doubled subject), and selected.
    assert abs(sticker["rotation"] - (-12)) < 0.01, sticker
    f, p = sticker["frame"], photo_item["frame"]
    offset = (f["x"] + f["width"] / 2 - (p["x"] + p["width"] / 2), f["y"] + f["height"] / 2 - (p["y"] + p["height"] / 2))
    assert (offset[0] ** 2 + offset[1] ** 2) ** 0.5 > min(p["width"], p["height"]) * 0.1, offset
    expect(page.locator(".selection")).to_have_attribute("data-id", sticker["id"])
    expect(page.locator("#upload-progress")).to_be_hidden()
    if SCREENSHOTS:
        page.locator(".item.sticker").click()
        page.wait_for_timeout(1500)  # the lift's particles have faded
        page.screenshot(path=str(ROOT / "docs/images/editor-sticker.jpg"), type="jpeg", quality=80)


def lift_by_tapping(page, tmp_path, size, disc, colour, at):
    """A one-photo collage (Side by Side) of a pale picture of `size` pixels holding one disc
    (its box `disc`, in `colour`), lifted by a click on its pixel `at` where the frame's crop
    shows it. Returns the collage's id, the photo's frame, the point tapped in canvas points and
    how many points a pixel of the picture covers. Skips without the subject model."""
    if not api(page, "/api/session")["stickers"]:
        pytest.skip("the subject model is not installed (scripts/fetch-model)")
    path = tmp_path / "disc.png"
    picture = Image.new("RGB", size, (246, 244, 240))
    ImageDraw.Draw(picture).ellipse(disc, fill=colour)
    picture.save(path)
    new_collage(page, layout="sideBySide")
    page.set_input_files("#file-input", [str(path)])
    expect(page.locator(".item")).to_have_count(1, timeout=30000)
    saved(page)
    cid = collage_id(page)
    photo_item = api(page, f"/api/collages/{cid}")["collage"]["items"][0]
    photo = page.locator(".item.photo").first
    photo.click()
    page.click("#lift")
    entry = next(e for e in api(page, f"/api/collages/{cid}")["layout"]["items"] if e["id"] == photo_item["id"])
    source, unit, frame = entry["source"], entry["imageSize"]["width"] / size[0], photo_item["frame"]
    points = frame["width"] / source["width"]  # canvas points a source pixel
    tapped = (frame["x"] + (at[0] * unit - source["x"]) * points, frame["y"] + (at[1] * unit - source["y"]) * points)
    assert frame["x"] < tapped[0] < frame["x"] + frame["width"] and frame["y"] < tapped[1] < frame["y"] + frame["height"]
    box = photo.bounding_box()
    screen = box["width"] / frame["width"]
    page.mouse.click(box["x"] + (tapped[0] - frame["x"]) * screen, box["y"] + (tapped[1] - frame["y"]) * screen)
    expect(page.locator(".item.sticker")).to_have_count(1, timeout=30000)
    saved(page)
    return cid, frame, tapped, unit * points


def test_a_small_subject_lands_at_its_size_in_the_photo_beside_where_it_was_tapped(page, tmp_path):
    # A sweet tapped among many landed blown up to four fifths of its photo's frame, soft, at
    # the frame's centre. It lands at the size the photo shows it, a step from where it was.
    # The sweet's centre, where the frame shows it (the photo is cropped to fill the frame).
    cid, photo_frame, tapped, scale = lift_by_tapping(page, tmp_path, (1200, 900), [540, 270, 660, 390], (235, 120, 30), (600, 330))
    shown = 120 * scale
    frame = api(page, f"/api/collages/{cid}")["collage"]["items"][-1]["frame"]
    assert frame["width"] < 2 * shown, f"the sweet, {shown:.0f} points across in the photo, landed {frame['width']:.0f} wide"
    assert frame["width"] < 0.5 * photo_frame["width"], (frame, photo_frame)
    centre = (frame["x"] + frame["width"] / 2, frame["y"] + frame["height"] / 2)
    distance = ((centre[0] - tapped[0]) ** 2 + (centre[1] - tapped[1]) ** 2) ** 0.5
    assert 0 < distance < shown, f"it landed {distance:.0f} points from the sweet"


def test_no_subject_says_so(page, server, tmp_path):
    if not api(page, "/api/session")["stickers"]:
        pytest.skip("the subject model is not installed (scripts/fetch-model)")
    flat = tmp_path / "flat.png"
    Image.new("RGB", (400, 300), (128, 128, 128)).save(flat)
    new_collage(page, layout="sideBySide")
    page.set_input_files("#file-input", [str(flat)])
    expect(page.locator(".item")).to_have_count(1, timeout=30000)
    saved(page)
    page.locator(".item").first.click()
    page.click("#lift")
    expect(page.locator("#mode-hint")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator("#mode-hint")).to_be_hidden()
    expect(page.locator(".selection")).to_be_visible()  # Escape left the mode, not the selection
    # The hint's own buttons take a mouse's click (the hint was drawn again as the button was
    # pressed, and the click was lost): Cancel leaves the mode, Every subject lifts.
    page.click("#lift")
    page.click("#lift-cancel")
    expect(page.locator("#mode-hint")).to_be_hidden()
    page.click("#lift")
    page.click("#lift-every")
    expect(page.locator("#status")).to_contain_text("No subject", timeout=30000)
    page.click("#lift")
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_contain_text("No subject", timeout=30000)


def test_a_collage_that_cannot_render_still_lists_and_opens(page, server):
    """A collage stored before the limits existed (a frame 1e300 points wide) used to kill the
    server on every thumbnail; now its card says so and everything else keeps working."""
    import sqlite3
    new_collage(page, "Poisoned")
    add_photos(page, ["coffee.png"])
    cid = collage_id(page)
    page.click(".brand")
    new_collage(page, "Healthy")
    with sqlite3.connect(Path(server["library"]) / "library.sqlite") as database:
        database.execute("UPDATE items SET width = 1e300, height = 1e300 WHERE collage_id = ?", (cid,))
        # A new version, as the change that stored it would have made: no cached thumbnail fits.
        database.execute("UPDATE collages SET version = version + 1 WHERE id = ?", (cid,))
    page.click(".brand")
    page.reload()
    expect(page.locator(".collage-card")).to_have_count(2)
    poisoned = page.locator(f".collage-card[data-id='{cid}']")
    expect(poisoned.locator(".thumbnail-missing")).to_be_visible(timeout=20000)
    expect(page.locator(".collage-card").filter(has_text="Healthy").locator(".thumbnail-empty")).to_be_visible()
    thumbnail = page.request.get(server["url"] + f"api/collages/{cid}/thumbnail")
    assert thumbnail.status == 422 and "cannot be rendered" in thumbnail.json()["error"]["message"]
    # The server is still up, and the collage still opens.
    page.click(f"button[aria-label='Open Poisoned']")
    expect(page.locator("#editor-view")).to_be_visible()


def test_geometry_in_the_page_matches_collagecore(page):
    """geometry.js (crop rectangles and hit-testing during live gestures) gives CollageCore's
    answers for the cases the Swift tests wrote (GeometryFixtureTests)."""
    fixture = ROOT / ".build" / "fixtures" / "geometry.json"
    assert fixture.exists(), f"{fixture} is written by the Swift tests (swift test) before these run"
    fixtures = json.loads(fixture.read_text())
    result = page.evaluate("""async (fixtures) => {
        const geometry = await import('/static/geometry.js');
        return {
            crops: fixtures.sourceRect.map((c) => geometry.sourceRect(c.image, c.frame, c.crop)),
            hits: fixtures.topmostItem.map((set) =>
                set.points.map((point) => geometry.topmostItem(set.items, point)?.id ?? null)),
        };
    }""", fixtures)
    assert len(result["crops"]) == len(fixtures["sourceRect"]) == 45
    for case, got in zip(fixtures["sourceRect"], result["crops"]):
        for key in ("x", "y", "width", "height"):
            assert abs(got[key] - case["expected"][key]) < 1e-6, (case, got)
    checked = 0
    for cases, answers in zip(fixtures["topmostItem"], result["hits"]):
        for point, answer in zip(cases["points"], answers):
            assert answer == point["expected"], (point, answer)
            checked += 1
    assert checked > 500


# Documents that break naive editors: what hangs over an edge, turned photos, rounded corners,
# crops zoomed and moved off centre, each layout family, portrait and landscape canvases.
# Each is (layout, photos, edits made of the item ids in slot order).
EXPORT_CASES = {
    "landscape grid, turned over the left and bottom edges": ("grid2x2", ["coffee.png", "chelsea.png", "rocket.jpg"], lambda ids: [
        {"op": "setAspect", "aspect": "3:2"},
        {"op": "setStyle", "style": {"background": "#f4e1c1", "spacing": 12, "padding": 16, "cornerRadius": 24}},
        {"op": "moveItem", "id": ids[0], "origin": {"x": -160, "y": 40}},
        {"op": "rotateItem", "id": ids[0], "degrees": 20},
        {"op": "moveItem", "id": ids[2], "origin": {"x": 420, "y": 560}},
        {"op": "rotateItem", "id": ids[2], "degrees": -35},
    ]),
    "portrait magazine, zoomed crop, over the top and right": ("magazine", ["astronaut.png", "coffee.png", "chelsea.png"], lambda ids: [
        {"op": "setAspect", "aspect": "4:5"},
        {"op": "setCrop", "id": ids[0], "crop": {"focus": {"x": 0.7, "y": 0.3}, "zoom": 2.5}},
        {"op": "moveItem", "id": ids[1], "origin": {"x": 800, "y": -120}},
        {"op": "rotateItem", "id": ids[1], "degrees": 8},
    ]),
    "square triptych, a photo larger than the canvas turned 135°": ("triptych", ["rocket.jpg", "chelsea.png", "coffee.png"], lambda ids: [
        {"op": "setStyle", "style": {"background": "#20242c", "spacing": 20, "padding": 20, "cornerRadius": 40}},
        {"op": "resizeItem", "id": ids[1], "frame": {"x": -200, "y": -150, "width": 1500, "height": 1300}},
        {"op": "rotateItem", "id": ids[1], "degrees": 135},
        {"op": "reorder", "id": ids[1], "move": "back"},
    ]),
    "wide strip, plain": ("strip", ["coffee.png", "chelsea.png", "astronaut.png"], lambda ids: [
        {"op": "setAspect", "aspect": "16:9"},
    ]),
    "tall story, side by side, over the top and bottom": ("sideBySide", ["rocket.jpg", "astronaut.png"], lambda ids: [
        {"op": "setAspect", "aspect": "9:16"},
        {"op": "setStyle", "style": {"background": "#ffffff", "spacing": 24, "padding": 0, "cornerRadius": 16}},
        {"op": "moveItem", "id": ids[0], "origin": {"x": 40, "y": -300}},
        {"op": "moveItem", "id": ids[1], "origin": {"x": 300, "y": 700}},
        {"op": "rotateItem", "id": ids[1], "degrees": -90},
    ]),
    "hero layout, a zoomed crop panned to a corner, turned inside its slot": ("heroPlusThree", ["chelsea.png", "coffee.png", "rocket.jpg", "astronaut.png"], lambda ids: [
        {"op": "setStyle", "style": {"background": "#f7f3ea", "spacing": 8, "padding": 30, "cornerRadius": 60}},
        {"op": "setCrop", "id": ids[0], "crop": {"focus": {"x": 1, "y": 0}, "zoom": 4}},
        {"op": "rotateItem", "id": ids[2], "degrees": 4},
    ]),
    "grid 3×3 on A4 with one photo hanging past two edges": ("grid3x3", ["coffee.png", "chelsea.png", "rocket.jpg"], lambda ids: [
        {"op": "setAspect", "aspect": "a4"},
        {"op": "moveItem", "id": ids[2], "origin": {"x": -150, "y": -120}},
        {"op": "rotateItem", "id": ids[2], "degrees": 45},
    ]),
    "every photo shape, framed, shadowed, turned and over the edges": ("grid3x3", ["coffee.png", "chelsea.png", "rocket.jpg"], lambda ids: [
        {"op": "setStyle", "style": {"background": "#e9e4da", "spacing": 12, "padding": 12, "cornerRadius": 20}},
        *[{"op": "duplicateItem", "id": ids[n % 3], "newID": f"d{n}"} for n in range(6)],
        *[edit for n, (item, shape, frame, degrees, extra) in enumerate([
            (ids[0], "rectangle", (-60, 20, 380, 360), 8, {"border": {"style": "line", "width": 14, "color": "#1f3a5f"}}),
            (ids[1], "roundedSquare", (420, 30, 360, 360), 0, {"shadow": {"color": "#00000066", "blur": 10, "x": 0, "y": 10}}),
            (ids[2], "circle", (820, -60, 440, 380), -12, {}),
            ("d0", "ellipse", (30, 420, 360, 300), 0, {"filter": {"id": "mono", "strength": 1}}),
            ("d1", "heart", (420, 400, 360, 360), 15, {"border": {"style": "line", "width": 10, "color": "#ffffff"}}),
            ("d2", "star", (820, 400, 360, 360), 0, {"shadow": {"color": "#00000080", "blur": 4, "x": 10, "y": 12}}),
            ("d3", "hexagon", (20, 820, 360, 420), -20, {}),
            ("d4", "arch", (430, 820, 340, 360), 0, {"border": {"style": "polaroid", "width": 14, "color": "#ffffff"},
                                                     "shadow": {"color": "#00000066", "blur": 8, "x": 0, "y": 8}}),
            ("d5", "blob", (840, 840, 420, 400), 30, {"flipHorizontal": True}),
        ]) for edit in [
            {"op": "resizeItem", "id": item, "frame": {"x": frame[0], "y": frame[1], "width": frame[2], "height": frame[3]}},
            {"op": "rotateItem", "id": item, "degrees": degrees},
            {"op": "setLook", "id": item, "look": {"shape": shape, **extra}},
        ]],
    ]),
}

# Resampling alone (the browser scales a 2,048 px preview, libvips the original, with different
# filters) leaves a mean difference of about 1–3 levels per channel on these photos, with edges
# of turned photos antialiased differently; a photo drawn outside the canvas, a wrong crop or a
# missing corner radius moves it past 6. The bound sits between the two.
MEAN_DIFFERENCE_BOUND = 6


@pytest.mark.unlocked
@pytest.mark.parametrize("case", list(EXPORT_CASES))
def test_the_canvas_is_the_export(page, case):
    layout, photos, edits = EXPORT_CASES[case]
    new_collage(page, title=case, layout=layout)
    add_photos(page, photos)
    cid = collage_id(page)
    ids = [item["id"] for item in sorted(api(page, f"/api/collages/{cid}")["collage"]["items"], key=lambda i: i["slot"])]
    edit(page, cid, edits(ids))
    reopen(page)
    shot, exported = canvas_and_export(page)
    difference = ImageStat.Stat(ImageChops.difference(exported, shot)).mean
    print(f"{case}: mean difference per channel {difference}")
    if os.environ.get("COLLAGE_KEEP_COMPARISONS"):
        name = re.sub(r"[^a-z]+", "-", case)
        shot.save(f"/tmp/{name}-canvas.png")
        exported.save(f"/tmp/{name}-export.png")
        ImageChops.difference(exported, shot).save(f"/tmp/{name}-difference.png")
    assert max(difference) < MEAN_DIFFERENCE_BOUND, f"{case}: mean difference per channel {difference}"
    # Nothing is drawn outside the canvas: just outside each edge the stage shows, as in the export.
    box = page.locator("[data-role=canvas]").bounding_box()
    stage = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    for x, y in [(box["x"] - 6, box["y"] + box["height"] / 2), (box["x"] + box["width"] + 6, box["y"] + box["height"] / 2),
                 (box["x"] + box["width"] / 2, box["y"] - 6), (box["x"] + box["width"] / 2, box["y"] + box["height"] + 6)]:
        pixel = stage.getpixel((int(x), int(y)))
        assert all(abs(a - b) <= 24 for a, b in zip(pixel, (232, 232, 237))), f"{case}: {pixel} at {x}, {y}"


def test_the_selection_is_above_its_neighbours_and_its_handles_win(page):
    new_collage(page, layout="grid2x2")
    add_photos(page, ["coffee.png", "chelsea.png"])
    cid = collage_id(page)
    items = api(page, f"/api/collages/{cid}")["collage"]["items"]
    lower, upper = items[0]["id"], items[1]["id"]
    # The upper photo (later in z-order) moves over the lower one's bottom-right corner.
    frame = items[0]["frame"]
    edit(page, cid, [{"op": "moveItem", "id": upper, "origin": {"x": frame["x"] + frame["width"] * 0.6, "y": frame["y"] + frame["height"] * 0.6}}])
    reopen(page)
    page.locator(f".item[data-id='{lower}']").click(position={"x": 10, "y": 10})
    selection = page.locator(".selection")
    expect(selection).to_have_attribute("data-id", lower)
    # Its outline and handles are drawn above the photo that covers them, and the pointer
    # finds the handle, not the photo above.
    handle = page.locator(".selection .handle.resize")
    hb = handle.bounding_box()
    hit = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('.handle, .item')?.className", [hb["x"] + 7, hb["y"] + 7])
    assert "handle" in hit, hit
    before = api(page, f"/api/collages/{cid}")["collage"]
    page.mouse.move(hb["x"] + 7, hb["y"] + 7)
    page.mouse.down()
    page.mouse.move(hb["x"] + 47, hb["y"] + 27, steps=5)
    page.mouse.up()
    saved(page)
    after = api(page, f"/api/collages/{cid}")["collage"]
    by_id = {item["id"]: item for item in after["items"]}
    old = {item["id"]: item for item in before["items"]}
    assert by_id[lower]["frame"]["width"] > old[lower]["frame"]["width"], "the selected photo was resized"
    assert by_id[upper]["frame"] == old[upper]["frame"], "the photo above it did not move"
    assert [item["id"] for item in after["items"]] == [lower, upper], "selecting changed no z-order"


def test_a_nudge_keeps_the_slot_and_new_photos_fill_empty_slots(page):
    new_collage(page, layout="strip")
    add_photos(page, ["coffee.png", "chelsea.png"])
    cid = collage_id(page)
    first = page.locator(".item").first
    first.focus()
    page.keyboard.press("ArrowRight")
    saved(page)
    assert page.evaluate("document.activeElement.classList.contains('item')"), "focus stays on the item after a key edit"
    page.keyboard.press("Shift+ArrowDown")
    saved(page)
    page.keyboard.press("=")
    saved(page)
    items = api(page, f"/api/collages/{cid}")["collage"]["items"]
    assert items[0]["slot"] == 0, "a nudge and growing in place keep the photo in its slot"
    assert len(page.locator(".slot-empty").all()) == 1, "one empty slot is left, and it is shown"
    page.set_input_files("#file-input", [str(SAMPLES / "rocket.jpg")])
    expect(page.locator(".item")).to_have_count(3, timeout=30000)
    saved(page)
    items = api(page, f"/api/collages/{cid}")["collage"]["items"]
    assert [item.get("slot") for item in items] == [0, 1, 2], "the new photo went to the empty slot"
    expect(page.locator(".slot-empty")).to_have_count(0)


def test_photos_a_layout_has_no_slot_for_are_stacked_in_front(page):
    new_collage(page, layout="grid2x2")
    add_photos(page, ["coffee.png", "chelsea.png", "rocket.jpg", "astronaut.png"])
    cid = collage_id(page)
    page.click("#tab-layouts")
    page.click("button[aria-label^='Side by Side,']")
    expect(page.locator("#status")).to_have_text(
        "Side by Side has 2 slots: 2 photos are stacked in front, at the centre", timeout=20000)
    doc = api(page, f"/api/collages/{cid}")["collage"]
    slotted = [item for item in doc["items"] if "slot" in item]
    extras = [item for item in doc["items"] if "slot" not in item]
    assert len(slotted) == 2 and len(extras) == 2
    assert doc["items"][-2:] == extras, "the photos without a slot are in front"
    a, b = (extra["frame"] for extra in extras)
    assert abs(a["x"] - b["x"]) > a["width"] * 0.2, "each stacked photo shows, not one hidden under the other"
    centre = (doc["canvas"]["width"] / 2, doc["canvas"]["height"] / 2)
    for item in extras:
        f = item["frame"]
        cx, cy = f["x"] + f["width"] / 2, f["y"] + f["height"] / 2
        assert abs(cx - centre[0]) < doc["canvas"]["width"] * 0.1 and abs(cy - centre[1]) < doc["canvas"]["height"] * 0.1


def collage_with_a_lifted_sticker(page, title):
    """A side-by-side collage of the coffee and the rocket, and a sticker lifted from the coffee
    (not yet placed); skips when the subject model is not installed. Returns (id, sticker)."""
    session = api(page, "/api/session")
    if not session["stickers"]:
        pytest.skip("the subject model is not installed (scripts/fetch-model)")
    new_collage(page, title=title, layout="sideBySide")
    add_photos(page, ["coffee.png", "rocket.jpg"])
    cid = collage_id(page)
    doc = api(page, f"/api/collages/{cid}")["collage"]
    base = page.url.split("#")[0].rstrip("/")
    lifted = page.request.post(
        f"{base}/api/photos/{doc['items'][0]['content']['ref']}/stickers", data=json.dumps({"at": {"x": 0.45, "y": 0.4}}),
        headers={"Content-Type": "application/json", "X-Collage-Token": session["token"]})
    assert lifted.ok, lifted.text()
    return cid, lifted.json()


def test_a_sticker_with_outline_and_shadow_is_the_export(page):
    """The sticker's outline and shadow on screen are the renderer's pixels, not a CSS glow."""
    cid, sticker = collage_with_a_lifted_sticker(page, "Sticker")
    edit(page, cid, [
        {"op": "setStyle", "style": {"background": "#3b6ea5", "spacing": 10, "padding": 10, "cornerRadius": 0}},
        {"op": "addItem", "id": "s1", "content": {"type": "sticker", "ref": sticker["id"]},
         "frame": {"x": 500, "y": 250, "width": 420, "height": 420 * sticker["height"] / sticker["width"]}},
        {"op": "rotateItem", "id": "s1", "degrees": 15},
        {"op": "setStickerStyle", "id": "s1", "style": {"outline": 14, "shadow": True}},
    ])
    reopen(page)
    drawn = page.locator(".item.sticker img")
    expect(drawn).to_have_attribute("src", re.compile(r"^blob:"), timeout=20000)
    page.wait_for_timeout(300)
    canvas_box = page.locator("[data-role=canvas]").bounding_box()
    item_box = page.locator(".item.sticker").bounding_box()
    shot, exported = canvas_and_export(page)
    difference = ImageStat.Stat(ImageChops.difference(exported, shot)).mean
    print(f"sticker: mean difference per channel {difference}")
    assert max(difference) < MEAN_DIFFERENCE_BOUND, f"mean difference per channel {difference}"
    # Around the sticker alone (its turned frame plus the outline and shadow), where a CSS
    # imitation of the outline would show.
    margin = 30
    region = (max(0, round(item_box["x"] - canvas_box["x"] - margin)), max(0, round(item_box["y"] - canvas_box["y"] - margin)),
              min(shot.size[0], round(item_box["x"] - canvas_box["x"] + item_box["width"] + margin)),
              min(shot.size[1], round(item_box["y"] - canvas_box["y"] + item_box["height"] + margin)))
    local = ImageStat.Stat(ImageChops.difference(exported.crop(region), shot.crop(region))).mean
    print(f"sticker region {region}: mean difference per channel {local}")
    assert max(local) < MEAN_DIFFERENCE_BOUND, f"around the sticker: mean difference per channel {local}"
    if os.environ.get("COLLAGE_KEEP_COMPARISONS"):
        shot.save("/tmp/sticker-canvas.png")
        exported.save("/tmp/sticker-export.png")


def test_the_corner_handle_keeps_a_stickers_proportions_and_a_photos_with_shift(page):
    """A sticker is drawn fitted in its frame: resized by its corner into another shape, it showed
    stretched while the corner moved, then small in a box too wide for it. Its corner keeps its
    proportions, as a pinch does; a photo's changes its frame's shape, unless Shift is held."""
    cid, sticker = collage_with_a_lifted_sticker(page, "Corner")
    f = api(page, f"/api/collages/{cid}")["collage"]["items"][0]["frame"]
    width = f["width"] * 0.5
    height = width * sticker["height"] / sticker["width"]
    edit(page, cid, [{"op": "addItem", "id": "s1", "content": {"type": "sticker", "ref": sticker["id"]},
                      "frame": {"x": f["x"], "y": f["y"], "width": width, "height": height}}])
    reopen(page)
    expect(page.locator(".item.sticker img")).to_have_attribute("src", re.compile(r"^blob:"), timeout=20000)

    def drag_corner(dx, dy, shift=False):
        handle = page.locator(".selection .handle.resize").bounding_box()
        page.mouse.move(handle["x"] + 7, handle["y"] + 7)
        if shift:
            page.keyboard.down("Shift")
        page.mouse.down()
        page.mouse.move(handle["x"] + 7 + dx, handle["y"] + 7 + dy, steps=6)
        page.mouse.up()
        if shift:
            page.keyboard.up("Shift")
        saved(page)

    box = page.locator(".item.sticker").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.locator(".selection")).to_have_attribute("data-id", "s1")
    # Dragged right only: the sticker grows whole, its shape kept.
    drag_corner(60, 0)
    items = {item["id"]: item for item in api(page, f"/api/collages/{cid}")["collage"]["items"]}
    grown = items["s1"]["frame"]
    assert grown["width"] > width * 1.1, grown
    assert abs(grown["width"] / grown["height"] - width / height) < 0.02, (grown, width / height)
    # A photo's corner reshapes its frame; with Shift it keeps its proportions.
    # The other photo, away from the sticker.
    photo = api(page, f"/api/collages/{cid}")["collage"]["items"][1]
    page.locator(f'.item[data-id="{photo["id"]}"]').click()
    expect(page.locator(".selection")).to_have_attribute("data-id", photo["id"])
    # (Its corner is at the canvas's edge: drawn in, so it narrows.)
    drag_corner(-40, 0)
    reshaped = next(item for item in api(page, f"/api/collages/{cid}")["collage"]["items"] if item["id"] == photo["id"])["frame"]
    ratio = photo["frame"]["width"] / photo["frame"]["height"]
    assert reshaped["width"] / reshaped["height"] < ratio * 0.95, (reshaped, photo["frame"])
    drag_corner(-40, 0, shift=True)
    kept = next(item for item in api(page, f"/api/collages/{cid}")["collage"]["items"] if item["id"] == photo["id"])["frame"]
    assert kept["width"] < reshaped["width"] * 0.95, kept
    assert abs(kept["width"] / kept["height"] - reshaped["width"] / reshaped["height"]) < 0.02, (kept, reshaped)


def test_a_press_on_a_stickers_clear_part_reaches_the_photo_below(page):
    """A sticker lying on a photo takes the pointer only where it is drawn: its frame's clear
    corners belong to the photo a person sees there, for a click and for a photo dropped there."""
    cid, sticker = collage_with_a_lifted_sticker(page, "Through")
    doc = api(page, f"/api/collages/{cid}")["collage"]
    photo = doc["items"][0]
    f = photo["frame"]
    width = f["width"] * 0.8
    height = width * sticker["height"] / sticker["width"]
    edit(page, cid, [{"op": "addItem", "id": "s1", "content": {"type": "sticker", "ref": sticker["id"]},
                      "frame": {"x": f["x"] + (f["width"] - width) / 2, "y": f["y"] + (f["height"] - height) / 2,
                                "width": width, "height": height}}])
    reopen(page)
    expect(page.locator(".item.sticker img")).to_have_attribute("src", re.compile(r"^blob:"), timeout=20000)
    box = page.locator(".item.sticker").bounding_box()
    corner = (box["x"] + box["width"] * 0.03, box["y"] + box["height"] * 0.03)
    middle = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.click(*middle)
    expect(page.locator(".selection")).to_have_attribute("data-id", "s1")
    # The sticker is selected and its frame's corner is clear: the press is the photo's.
    page.mouse.click(*corner)
    expect(page.locator(".selection")).to_have_attribute("data-id", photo["id"])
    page.mouse.click(*middle)
    expect(page.locator(".selection")).to_have_attribute("data-id", "s1")
    # Dragged by its clear corner, the photo moves, not the sticker.
    before = {item["id"]: item["frame"] for item in api(page, f"/api/collages/{cid}")["collage"]["items"]}
    page.mouse.move(*corner)
    page.mouse.down()
    page.mouse.move(corner[0] + 30, corner[1] + 20, steps=5)
    page.mouse.up()
    saved(page)
    after = {item["id"]: item["frame"] for item in api(page, f"/api/collages/{cid}")["collage"]["items"]}
    assert after["s1"] == before["s1"], "the sticker stayed where it was"
    assert after[photo["id"]] != before[photo["id"]], "the photo under the clear corner moved"
    # A caption across the sticker's top, its words at the right end: its frame's empty left part
    # is no more the caption's above the sticker's clear corner than elsewhere.
    s1 = after["s1"]
    edit(page, cid, [{"op": "addItem", "id": "t1", "content": {"type": "text", "text": "Hi", "align": "right", "size": 24},
                      "frame": {"x": s1["x"], "y": s1["y"], "width": s1["width"], "height": s1["height"] * 0.2}}])
    reopen(page)
    expect(page.locator(".item.sticker img")).to_have_attribute("src", re.compile(r"^blob:"), timeout=20000)
    box = page.locator(".item.sticker").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.03, box["y"] + box["height"] * 0.03)
    expect(page.locator(".selection")).to_have_attribute("data-id", photo["id"])


def test_an_empty_frames_plus_is_pressed_through_a_stickers_clear_corner(page):
    """A sticker whose clear corner lies over an empty frame's "+" leaves the "+" to be pressed."""
    cid, sticker = collage_with_a_lifted_sticker(page, "Plus")
    doc = api(page, f"/api/collages/{cid}")["collage"]
    second = doc["items"][1]
    slot = second["frame"]
    centre = (slot["x"] + slot["width"] / 2, slot["y"] + slot["height"] / 2)
    width = slot["width"] * 0.6
    # The rocket leaves its frame empty; the sticker's frame starts just above left of the "+".
    edit(page, cid, [{"op": "removeItem", "id": second["id"]},
                     {"op": "addItem", "id": "s1", "content": {"type": "sticker", "ref": sticker["id"]},
                      "frame": {"x": centre[0] - 4, "y": centre[1] - 4, "width": width,
                                "height": width * sticker["height"] / sticker["width"]}}])
    reopen(page)
    expect(page.locator(".item.sticker img")).to_have_attribute("src", re.compile(r"^blob:"), timeout=20000)
    plus = page.locator(".slot-empty button").bounding_box()
    page.mouse.click(plus["x"] + plus["width"] / 2, plus["y"] + plus["height"] / 2)
    expect(page.locator("#tray-target")).to_be_visible()
    expect(page.locator("#tray-target-text")).to_have_text("Choose a photo for frame 2")


def test_a_see_through_background_is_the_export(page):
    """On a transparent canvas the photos agree with the export, and where the export is see-through
    the canvas shows its checkerboard, not a colour of its own."""
    new_collage(page, title="See-through", layout="sideBySide")
    add_photos(page, ["coffee.png", "chelsea.png"])
    cid = collage_id(page)
    ids = [item["id"] for item in api(page, f"/api/collages/{cid}")["collage"]["items"]]
    edit(page, cid, [
        {"op": "setStyle", "style": {"background": "#00000000", "spacing": 40, "padding": 40, "cornerRadius": 30}},
        {"op": "rotateItem", "id": ids[1], "degrees": 10},
    ])
    reopen(page)
    shot = canvas_shot(page)
    exported = export_png(page, max(shot.size))
    assert exported.mode == "RGBA", "a see-through background keeps its alpha in PNG"
    exported = exported.resize(shot.size)
    alpha = exported.getchannel("A")
    opaque = alpha.point(lambda a: 255 if a == 255 else 0)
    clear = alpha.point(lambda a: 255 if a == 0 else 0)
    difference = ImageChops.difference(exported.convert("RGB"), shot)
    photo_difference = ImageStat.Stat(difference, mask=opaque).mean
    assert max(photo_difference) < MEAN_DIFFERENCE_BOUND, f"where the export is opaque: {photo_difference}"
    # The checkerboard is #ddd and white: light and grey, never a colour.
    checker = ImageStat.Stat(shot, mask=clear)
    assert min(checker.mean) > 215 and max(checker.mean) - min(checker.mean) < 3, checker.mean
    assert ImageStat.Stat(clear).mean[0] > 40, "a good part of the canvas is see-through"
    # A JPEG would come out on white: the export dialog says so before the download, not after.
    page.click("#export-button")
    page.select_option("#export-form select[name=format]", "jpeg")
    expect(page.locator("#export-alpha")).to_be_visible()
    expect(page.locator("#export-alpha")).to_contain_text("comes out white")
    page.select_option("#export-form select[name=format]", "png")
    expect(page.locator("#export-alpha")).to_be_hidden()
    page.keyboard.press("Escape")


def test_a_see_through_photo_shows_the_background_as_the_export_does(page, tmp_path):
    """A PNG with a clear background and a half-clear square, on a navy collage: the editor drew
    it on white (its preview was a JPEG) while the export showed the navy through it."""
    picture = Image.new("RGBA", (600, 400), (0, 0, 0, 0))
    draw = ImageDraw.Draw(picture)
    draw.ellipse((40, 40, 300, 360), fill=(30, 200, 90, 255))
    draw.rectangle((360, 120, 560, 320), fill=(220, 30, 30, 128))
    path = tmp_path / "see-through.png"
    picture.save(path)
    new_collage(page, title="See-through photo", layout="sideBySide")
    page.set_input_files("#file-input", [str(path)])
    expect(page.locator(".item")).to_have_count(1, timeout=30000)
    saved(page)
    cid = collage_id(page)
    edit(page, cid, [{"op": "setStyle", "style": {"background": "#1a2a6c", "spacing": 0, "padding": 0}}])
    reopen(page)
    shot, exported = canvas_and_export(page)
    difference = ImageStat.Stat(ImageChops.difference(shot, exported)).mean
    assert max(difference) < MEAN_DIFFERENCE_BOUND, difference
    # Where the export shows the navy (round the photo's ellipse), so does the editor: not white.
    navy = (0x1a, 0x2a, 0x6c)
    red, green, blue = ImageChops.difference(exported, Image.new("RGB", exported.size, navy)).split()
    where = ImageChops.lighter(ImageChops.lighter(red, green), blue).point(lambda v: 255 if v < 12 else 0)
    assert ImageStat.Stat(where).mean[0] > 255 * 0.2, "the navy shows through a good part of the photo"
    editor_there = ImageStat.Stat(shot, mask=where).mean
    assert max(abs(a - b) for a, b in zip(editor_there, navy)) < 12, editor_there


def test_a_collage_that_is_not_there_says_so_and_offers_the_way_back(page, server):
    page.goto(server["url"] + "#/c/nosuchcollage")
    missing = page.locator("#editor-missing")
    expect(missing).to_be_visible()
    expect(page.locator("#editor-missing-title")).to_have_text("This collage is not in your library")
    expect(page).to_have_title("Collage not found — Collage")
    expect(page.locator("[data-role=canvas]")).to_be_hidden()
    for control in page.locator("#editor-view .toolbar button, #editor-view .toolbar input, #editor-view .toolbar select").all():
        expect(control).to_be_disabled()
    page.click("#editor-missing a")
    expect(page.locator("#library-view")).to_be_visible()
    # A collage that exists opens with its tools on again.
    new_collage(page, "Back again")
    expect(page.locator("#tab-layouts")).to_be_enabled()
    expect(page.locator("#editor-missing")).to_be_hidden()


def test_the_keyboard_reaches_the_photos_at_once_and_delete_only_acts_on_an_item(page):
    new_collage(page, layout="grid2x2")
    add_photos(page, ["coffee.png", "chelsea.png"])
    cid = collage_id(page)
    page.reload()
    expect(page.locator(".item")).to_have_count(2)
    # Two Tabs (past the brand link) and Enter: the first photo has the keyboard.
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.locator("#skip-to-canvas")).to_be_focused()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.classList.contains('item')")
    expect(page.locator(".selection")).to_be_visible()
    # With a photo selected, Delete on a focused toolbar button removes nothing.
    page.locator("#tab-layouts").focus()
    page.keyboard.press("Delete")
    page.wait_for_timeout(300)
    assert len(api(page, f"/api/collages/{cid}")["collage"]["items"]) == 2
    page.locator(".item").first.focus()
    page.keyboard.press("Delete")
    saved(page)
    assert len(api(page, f"/api/collages/{cid}")["collage"]["items"]) == 1


def test_duplicate_copies_the_selected_item_a_step_away_with_the_keys_or_the_button(page):
    new_collage(page, layout="grid2x2")
    add_photos(page, ["coffee.png"])
    cid = collage_id(page)
    page.locator(".item").first.click()
    expect(page.locator(".selection")).to_be_visible()
    # Ctrl-D (Cmd-D on a Mac) copies it; the browser's bookmark shortcut does not open.
    page.keyboard.press("Control+d")
    expect(page.locator(".item")).to_have_count(2)
    saved(page)
    doc = api(page, f"/api/collages/{cid}")["collage"]
    original, copy = doc["items"][0], doc["items"][1]
    assert copy["content"] == original["content"] and "slot" not in copy and original["slot"] == 0
    assert copy["frame"]["width"] == original["frame"]["width"]
    assert copy["frame"]["x"] > original["frame"]["x"] and copy["frame"]["y"] > original["frame"]["y"]
    # The copy is what is selected now: the button copies it again, above it.
    expect(page.locator(f".item[data-id='{copy['id']}']")).to_have_class(re.compile("selected"))
    page.click("#duplicate-item")
    expect(page.locator(".item")).to_have_count(3)
    saved(page)
    third = api(page, f"/api/collages/{cid}")["collage"]["items"][2]
    assert third["frame"]["x"] > copy["frame"]["x"]
    # One step each: Undo takes the last copy back.
    page.click("#undo")
    expect(page.locator(".item")).to_have_count(2)


def test_upload_results_stay_in_view_until_read(page, tmp_path):
    """A file that cannot be imported is reported in plain words, once, in a message that the
    next "All changes saved" does not overwrite; the photos that could be imported say so too."""
    new_collage(page, layout="grid2x2")
    broken = tmp_path / "holiday.png"
    broken.write_bytes(b"this is not a picture")
    page.set_input_files("#file-input", [str(SAMPLES / "coffee.png"), str(broken)])
    expect(page.locator(".item")).to_have_count(1, timeout=30000)
    saved(page)
    error = page.locator(".toast.error")
    expect(error).to_have_count(1)
    expect(error).to_contain_text("holiday.png: not a readable image (its format is not one Collage reads: JPEG")
    assert error.inner_text().count("holiday.png") == 1 and "Vips" not in error.inner_text()
    expect(page.locator(".toast.success")).to_contain_text("Added 1 photo")
    error.locator("button").click()
    expect(page.locator(".toast.error")).to_have_count(0)


@pytest.mark.unlocked
def test_the_library_searches_sorts_and_shows_an_empty_collages_layout(page):
    for title in ["Beach", "Alps", "City nights"]:
        new_collage(page, title, layout="magazine")
        page.click(".brand")
        expect(page.locator(".collage-card .title").first).to_be_visible()
    cards = page.locator(".collage-card")
    expect(cards).to_have_count(3)
    # Newest change first; then by title.
    expect(page.locator(".collage-card .title")).to_have_text(["City nights", "Alps", "Beach"])
    page.select_option("#library-sort", "title")
    expect(page.locator(".collage-card .title")).to_have_text(["Alps", "Beach", "City nights"])
    page.fill("#library-search", "ni")
    expect(page.locator(".collage-card:visible .title")).to_have_text(["City nights"])
    expect(page.locator("#library-count")).to_have_text("1 of 3 collages")
    page.fill("#library-search", "xyz")
    expect(page.locator(".collage-card:visible")).to_have_count(0)
    expect(page.locator("#library-count")).to_have_text("No collage title has “xyz” in it (of 3 collages)")
    page.fill("#library-search", "")
    expect(page.locator(".collage-card:visible")).to_have_count(3)
    # Deleted from the keyboard, the keyboard moves to the next card's picture: a second Enter
    # there opens it, and never deletes a second collage.
    page.locator("button[aria-label='Delete Beach']").focus()
    page.keyboard.press("Enter")
    expect(page.locator(".collage-card")).to_have_count(2)
    assert page.evaluate("document.activeElement.tagName") == "A", page.evaluate("document.activeElement.outerHTML")
    undo = page.locator(".toast", has_text="Deleted “Beach”").locator(".toast-action")
    undo.click()
    expect(page.locator(".collage-card")).to_have_count(3)
    # A collage with no photos shows its layout, named, not a blank square.
    empty = page.locator(".collage-card").first.locator(".thumbnail-empty")
    expect(empty).to_contain_text("Magazine, no photos yet")
    expect(empty.locator("svg rect")).to_have_count(3)
    box = page.locator(".collage-card a").first.bounding_box()
    assert abs(box["width"] - box["height"]) < 2, "the thumbnail keeps its square"


def test_a_subject_lifted_at_the_canvas_foot_lands_whole_on_the_canvas(page, tmp_path):
    # An astronaut lifted from the foot of the bottom photo landed a step below and to the right
    # of the tap, hanging half off the canvas: cut in the export, its turn handle out of reach.
    # A ball at the photo's foot.
    cid, _, _, _ = lift_by_tapping(page, tmp_path, (900, 1600), [380, 1260, 700, 1580], (40, 110, 220), (540, 1440))
    document = api(page, f"/api/collages/{cid}")["collage"]
    landed, canvas = document["items"][-1]["frame"], document["canvas"]
    assert landed["x"] >= 0 and landed["y"] >= 0, landed
    assert landed["x"] + landed["width"] <= canvas["width"] + 0.01, (landed, canvas)
    assert landed["y"] + landed["height"] <= canvas["height"] + 0.01, (landed, canvas)
