"""Text in the editor: added from the Text tab, typed in place, styled, and drawn on the canvas
with the renderer's own pixels, so the screen is the export, turned, outlined and in any script."""
import os

from PIL import ImageChops, ImageStat
from playwright.sync_api import expect

from test_editor import (MEAN_DIFFERENCE_BOUND, ROOT, SCREENSHOTS, add_photos, api, canvas_and_export, collage_id,
                         edit, new_collage, reopen, saved)


def text_items(page):
    return [i for i in api(page, f"/api/collages/{collage_id(page)}")["collage"]["items"] if i["content"]["type"] == "text"]


def wait_for_words(page, words):
    """Waits until the saved collage's first text reads `words` (a save follows the last key)."""
    for _ in range(100):
        texts = text_items(page)
        if texts and texts[0]["content"]["text"] == words:
            return texts[0]
        page.wait_for_timeout(100)
    raise AssertionError(f"the text never read {words!r}: {text_items(page)}")


def drawn_text(page, count=1):
    """Waits until every text on the canvas shows the renderer's pixels (not the placeholder)."""
    expect(page.locator(".item.text img[src^='blob:']")).to_have_count(count, timeout=20000)
    expect(page.locator(".item.text .text-fallback")).to_have_count(0)
    page.wait_for_timeout(200)


def test_a_title_is_added_typed_in_place_styled_and_removed_when_emptied(page):
    new_collage(page, "Text", layout="sideBySide")
    add_photos(page, ["coffee.png", "chelsea.png"])
    page.click("#tab-text")
    page.get_by_role("button", name="Add title text").click()
    editor = page.locator("#text-editor")
    expect(editor).to_be_focused()
    # The sample words are selected: typing replaces them.
    page.keyboard.type("Summer in Lisbon")
    saved(page)
    expect(page.locator(".item.text")).to_have_count(1)
    page.wait_for_timeout(900)
    saved(page)
    [title] = text_items(page)
    assert title["content"]["text"] == "Summer in Lisbon"
    assert title["content"]["font"] == "Inter" and title["content"]["weight"] == 800
    # The frame hugs one line of words; a second line makes it taller.
    one_line = title["frame"]["height"]
    page.keyboard.press("Enter")
    page.keyboard.type("2026")
    page.wait_for_timeout(900)
    saved(page)
    [title] = text_items(page)
    assert title["content"]["text"] == "Summer in Lisbon\n2026"
    assert title["frame"]["height"] > one_line * 1.6, (one_line, title["frame"]["height"])
    # When typing pauses, the renderer's drawing replaces the overlay's letters.
    expect(editor).to_have_class("text-editor resting", timeout=20000)
    page.keyboard.press("Escape")
    expect(editor).to_have_count(0)
    drawn_text(page)

    # Styled from the Text tab: each control is one saved change.
    expect(page.locator("#text-style")).to_be_visible()
    page.select_option("#text-font", "Lobster Two")
    saved(page)
    page.locator("#text-color").evaluate("(input, value) => { input.value = value; input.dispatchEvent(new Event('change')); }", "#c0392b")
    saved(page)
    page.click("#text-align-left")
    saved(page)
    page.check("#text-pill")
    saved(page)
    page.check("#text-shadow")
    saved(page)
    [styled] = text_items(page)
    content = styled["content"]
    assert content["font"] == "Lobster Two" and content["color"] == "#c0392b" and content["align"] == "left"
    assert content["background"]["opacity"] > 0 and "shadow" in content
    assert content["text"] == "Summer in Lisbon\n2026", "styling keeps the words"
    drawn_text(page)
    if SCREENSHOTS:
        page.wait_for_timeout(300)
        page.screenshot(path=str(ROOT / "docs/images/editor-text.jpg"), type="jpeg", quality=80)

    # Double-click to type again; emptied, the text goes.
    page.locator(".item.text").dblclick()
    expect(editor).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.press("Escape")
    saved(page)
    expect(page.locator(".item.text")).to_have_count(0)
    assert text_items(page) == []


def test_words_typed_just_before_a_reload_are_kept(page):
    """A text on the canvas saved a pause after the last key, and the title only once its box
    was left: a reload half a second after typing lost the words, while the status said all
    was saved. Now the status says so while words wait, and they go as the page goes."""
    new_collage(page, "Before", layout="sideBySide")
    page.click("#tab-text")
    page.get_by_role("button", name="Add title text").click()
    expect(page.locator(".item.text")).to_have_count(1)
    saved(page)
    expect(page.locator("#text-editor")).to_be_focused()
    page.keyboard.type("Best friends")
    expect(page.locator("#status")).to_have_text("Editing…")
    page.reload()
    expect(page.locator("#editor-view")).to_be_visible()
    wait_for_words(page, "Best friends")

    page.click("#title-input")
    page.keyboard.press("Control+A")
    page.keyboard.type("My holiday collage")
    expect(page.locator("#status")).to_have_text("Editing…")
    page.reload()
    expect(page.locator("#editor-view")).to_be_visible()
    for _ in range(100):
        if api(page, f"/api/collages/{collage_id(page)}")["collage"]["title"] == "My holiday collage":
            break
        page.wait_for_timeout(100)
    assert api(page, f"/api/collages/{collage_id(page)}")["collage"]["title"] == "My holiday collage"
    # And typed with pauses, the title is saved as it is typed, without leaving the box.
    page.click("#title-input")
    page.keyboard.press("End")
    page.keyboard.type(" 2026")
    saved(page)
    assert api(page, f"/api/collages/{collage_id(page)}")["collage"]["title"] == "My holiday collage 2026"
    expect(page.locator("#title-input")).to_be_focused()
    # Typed back to the saved words, nothing waits: the status says all is saved again.
    page.keyboard.type("!")
    expect(page.locator("#status")).to_have_text("Editing…")
    page.keyboard.press("Backspace")
    expect(page.locator("#status")).to_have_text("All changes saved")
    # Typed, then straight back to the library (the browser's Back: the box keeps the focus to
    # the end, so no change event comes): the words go as the editor closes.
    cid = collage_id(page)
    page.keyboard.type(" in Lisbon")
    page.evaluate("location.hash = '#/'")
    expect(page.locator(".collage-card")).to_have_count(1)
    for _ in range(100):
        if api(page, f"/api/collages/{cid}")["collage"]["title"] == "My holiday collage 2026 in Lisbon":
            break
        page.wait_for_timeout(100)
    assert api(page, f"/api/collages/{cid}")["collage"]["title"] == "My holiday collage 2026 in Lisbon"


def test_enter_edits_the_selected_text_and_undo_brings_the_words_back(page):
    new_collage(page, "Keys", layout="grid2x2")
    cid = collage_id(page)
    edit(page, cid, [{"op": "addItem", "id": "t1", "content": {"type": "text", "text": "Before", "size": 60},
                      "frame": {"x": 100, "y": 100, "width": 800, "height": 80}}])
    reopen(page)
    page.locator(".item.text").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#text-editor")).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.type("After")
    page.keyboard.press("Escape")
    wait_for_words(page, "After")
    saved(page)
    page.keyboard.press("Control+Z")
    wait_for_words(page, "Before")


def test_text_over_the_edge_turned_outlined_and_in_any_script_is_the_export(page):
    """The cases that break naive editors: a text turned, outlined, with a shadow and a pill,
    running past the canvas edge, in Arabic, Hebrew, Chinese and colour emoji."""
    new_collage(page, "Scripts", layout="sideBySide")
    add_photos(page, ["coffee.png", "horse.png"])
    cid = collage_id(page)
    edit(page, cid, [
        {"op": "addItem", "id": "over", "content": {
            "type": "text", "text": "Over the edge ☀️", "font": "Lobster Two", "size": 110, "color": "#ffd23f",
            "outline": {"color": "#1f1f1f", "width": 4}, "shadow": {"color": "#00000099", "blur": 5, "x": 3, "y": 5}},
         "frame": {"x": 700, "y": 80, "width": 800, "height": 150}},
        {"op": "rotateItem", "id": "over", "degrees": -12},
        {"op": "addItem", "id": "scripts", "content": {
            "type": "text", "text": "مرحبا · שלום · 你好 · 😀", "font": "Inter", "weight": 700, "size": 54,
            "color": "#ffffff", "background": {"color": "#1f1f1f", "opacity": 0.75, "padding": 16}},
         "frame": {"x": 150, "y": 880, "width": 900, "height": 80}},
        {"op": "rotateItem", "id": "scripts", "degrees": 4},
    ])
    reopen(page)
    drawn_text(page, 2)
    items = {i["id"]: i for i in text_items(page)}
    assert items["over"]["frame"]["x"] + items["over"]["frame"]["width"] > 1200, "the title runs past the edge"
    shot, exported = canvas_and_export(page)
    difference = ImageStat.Stat(ImageChops.difference(exported, shot)).mean
    print(f"text: mean difference per channel {difference}")
    assert max(difference) < MEAN_DIFFERENCE_BOUND, f"mean difference per channel {difference}"
    # Where the words are, the screen's pixels are the export's too (not only on average).
    width, height = shot.size
    for region in [(int(width * 0.55), 0, width, int(height * 0.3)), (0, int(height * 0.68), width, int(height * 0.85))]:
        local = ImageStat.Stat(ImageChops.difference(exported.crop(region), shot.crop(region))).mean
        print(f"text region {region}: {local}")
        assert max(local) < MEAN_DIFFERENCE_BOUND * 1.5, f"around the text {region}: {local}"
    if os.environ.get("COLLAGE_KEEP_COMPARISONS") or SCREENSHOTS:
        shot.save("/tmp/text-canvas.png")
        exported.save("/tmp/text-export.png")
    if SCREENSHOTS:
        exported.save(ROOT / "docs/images/text-scripts-export.png")


def test_bad_text_from_the_api_is_refused_and_the_page_keeps_working(page):
    new_collage(page, "Bad", layout="grid2x2")
    cid = collage_id(page)
    base = page.url.split("#")[0].rstrip("/")
    token = api(page, "/api/session")["token"]
    for text, message in [("", "expected some text"), ("x" * 100000, "at most 2000 characters"),
                          ("bell\u0007", "control character U+0007")]:
        response = page.request.post(
            f"{base}/api/collages/{cid}/edits",
            data={"version": 1, "edits": [{"op": "addItem", "id": "t", "content": {"type": "text", "text": text}}]},
            headers={"X-Collage-Token": token})
        assert response.status == 422, response.status
        assert message in response.json()["error"]["message"]
    # The page still adds text as it should.
    page.click("#tab-text")
    page.get_by_role("button", name="Add label text").click()
    page.keyboard.type("Still fine")
    page.keyboard.press("Escape")
    wait_for_words(page, "Still fine")


def test_a_click_beside_a_short_caption_reaches_the_photo_below(page):
    new_collage(page, "Reach", layout="grid2x2")
    add_photos(page, ["coffee.png", "chelsea.png", "rocket.jpg", "horse.png"])
    cid = collage_id(page)
    edit(page, cid, [{"op": "addItem", "id": "cap", "content": {"type": "text", "text": "Hi", "size": 60, "align": "left"},
                      "frame": {"x": 40, "y": 200, "width": 1100, "height": 80}}])
    reopen(page)
    drawn_text(page)
    canvas = page.locator("[data-role=canvas]").bounding_box()
    scale = canvas["width"] / api(page, f"/api/collages/{cid}")["collage"]["canvas"]["width"]
    # Far right in the caption's frame, where there are no words: the photo there is selected.
    page.mouse.click(canvas["x"] + 1000 * scale, canvas["y"] + 240 * scale)
    selected = page.locator(".item.selected")
    expect(selected).to_have_count(1)
    assert "photo" in selected.get_attribute("class")
    # On the words, the caption is.
    page.mouse.click(canvas["x"] + 70 * scale, canvas["y"] + 240 * scale)
    expect(page.locator(".item.text.selected")).to_have_count(1)


def test_a_new_text_is_light_on_a_dark_collage_and_dark_on_a_light_one(page):
    # The Title (dark words, a light glow) over a black horse could not be read, nor the Caption
    # (white words) on the white canvas: each takes the colours that read on what lies under it.
    new_collage(page, "Contrast", layout="sideBySide")
    edit(page, collage_id(page), [{"op": "setStyle", "style": {"background": "#141414", "spacing": 12, "padding": 12, "cornerRadius": 0}}])
    reopen(page)
    page.click("#tab-text")
    title = page.get_by_role("button", name="Add title text")
    title.hover()
    page.wait_for_timeout(600)  # the collage's small picture is fetched as the pointer nears
    title.click()
    page.keyboard.press("Escape")
    saved(page)
    [added] = text_items(page)
    assert added["content"]["color"].lower().startswith("#ffffff"), added["content"]
    # On a white canvas, a Caption's words are dark.
    edit(page, collage_id(page), [{"op": "setStyle", "style": {"background": "#ffffff", "spacing": 12, "padding": 12, "cornerRadius": 0}}])
    reopen(page)
    page.click("#tab-text")
    caption = page.get_by_role("button", name="Add caption text")
    caption.hover()
    page.wait_for_timeout(600)
    caption.click()
    page.keyboard.press("Escape")
    saved(page)
    added = text_items(page)[-1]
    assert added["content"]["color"].lower().startswith("#1f1f1f"), added["content"]
