"""Looks in the editor: flip and opacity, set from the item toolbar, the keys and the Adjust
tab, shown on the canvas as the renderer draws them (a turned photo over the edge, a lifted
sticker whose shadow must still fall down when it is upside down)."""
import json
import os
import re

from PIL import ImageChops, ImageFilter, ImageStat
from playwright.sync_api import expect

from test_editor import (MEAN_DIFFERENCE_BOUND, SAMPLES, api, canvas_and_export, collage_with_a_lifted_sticker, edit,
                         new_collage, reopen, saved)


def item_of(page, cid, item_id):
    return next(i for i in api(page, f"/api/collages/{cid}")["collage"]["items"] if i["id"] == item_id)


def assert_canvas_is_export(page, name, blur=False):
    """The canvas's screenshot beside the export at its size: their mean difference per channel
    is within the bound the editor tests use (kept in /tmp with COLLAGE_KEEP_COMPARISONS).
    `blur` softens both by a pixel first, for fine patterns."""
    shot, exported = canvas_and_export(page)
    if blur:
        shot, exported = (image.filter(ImageFilter.GaussianBlur(1)) for image in (shot, exported))
    difference = ImageStat.Stat(ImageChops.difference(exported, shot)).mean
    print(f"{name}: mean difference per channel {difference}")
    if os.environ.get("COLLAGE_KEEP_COMPARISONS"):
        shot.save(f"/tmp/{name}-canvas.png")
        exported.save(f"/tmp/{name}-export.png")
    assert max(difference) < MEAN_DIFFERENCE_BOUND, f"{name}: mean difference per channel {difference}"
    return shot, exported


def test_flip_and_opacity_are_set_in_the_editor_and_are_the_export(page):
    cid, sticker = collage_with_a_lifted_sticker(page, "Looks")
    items = api(page, f"/api/collages/{cid}")["collage"]["items"]
    coffee, rocket = items[0]["id"], items[1]["id"]
    edit(page, cid, [
        {"op": "setStyle", "style": {"background": "#264d3b", "spacing": 10, "padding": 10, "cornerRadius": 24}},
        # The coffee turned and over the left edge: what a naive editor clips or mirrors wrongly.
        {"op": "resizeItem", "id": coffee, "frame": {"x": -120, "y": 140, "width": 640, "height": 800}},
        {"op": "rotateItem", "id": coffee, "degrees": 8},
        {"op": "addItem", "id": "s1", "content": {"type": "sticker", "ref": sticker["id"]},
         "frame": {"x": 560, "y": 300, "width": 420, "height": 420 * sticker["height"] / sticker["width"]}},
        {"op": "rotateItem", "id": "s1", "degrees": -12},
        {"op": "setStickerStyle", "id": "s1", "style": {"outline": 12, "shadow": True}},
    ])
    reopen(page)

    # The toolbar's Flip mirrors the rocket left to right; Shift+V top to bottom.
    page.locator(f".item[data-id='{rocket}']").click(position={"x": 20, "y": 20})
    page.click("#flip-item")
    saved(page)
    expect(page.locator("#flip-item")).to_have_attribute("aria-pressed", "true")
    # A click on the photo gives it the keyboard back from the toolbar's button.
    rocket_box = page.locator(f".item[data-id='{rocket}']").bounding_box()
    page.locator(f".item[data-id='{rocket}']").click(position={"x": 20, "y": rocket_box["height"] - 20})
    page.keyboard.press("Shift+V")
    saved(page)
    assert item_of(page, cid, rocket)["look"] == {"flipHorizontal": True, "flipVertical": True}

    # The Adjust tab: the coffee at 60 %, the sticker upside down.
    page.locator(f".item[data-id='{coffee}']").click(position={"x": 200, "y": 200})
    page.click("#tab-adjust")
    expect(page.locator("#item-look")).to_be_visible()
    expect(page.locator("#opacity-value")).to_have_text("100 %")
    page.fill("#opacity-input", "60")
    saved(page)
    assert item_of(page, cid, coffee)["look"] == {"opacity": 0.6}
    page.locator(".item.sticker").click()
    page.click("#flip-vertical")
    saved(page)
    expect(page.locator("#flip-vertical")).to_have_attribute("aria-pressed", "true")
    assert item_of(page, cid, "s1")["look"] == {"flipVertical": True}

    expect(page.locator(".item.sticker img[src^='blob:']")).to_have_count(1, timeout=20000)
    page.wait_for_timeout(600)
    canvas_box = page.locator("[data-role=canvas]").bounding_box()
    sticker_box = page.locator(".item.sticker").bounding_box()
    shot, exported = assert_canvas_is_export(page, "looks")
    # Around the upside-down sticker alone, where a mirrored shadow would show.
    margin = 30
    region = (max(0, round(sticker_box["x"] - canvas_box["x"] - margin)),
              max(0, round(sticker_box["y"] - canvas_box["y"] - margin)),
              min(shot.size[0], round(sticker_box["x"] - canvas_box["x"] + sticker_box["width"] + margin)),
              min(shot.size[1], round(sticker_box["y"] - canvas_box["y"] + sticker_box["height"] + margin)))
    local = ImageStat.Stat(ImageChops.difference(exported.crop(region), shot.crop(region))).mean
    print(f"sticker region {region}: {local}")
    assert max(local) < MEAN_DIFFERENCE_BOUND, f"around the sticker: {local}"

    # One undoable step each: Undo takes the sticker's flip back, and a text offers no flip.
    page.click("#undo")
    saved(page)
    assert "look" not in item_of(page, cid, "s1")
    edit(page, cid, [{"op": "addItem", "id": "t", "content": {"type": "text", "text": "Hello"}}])
    reopen(page)
    page.locator(".item.text").click()
    expect(page.locator("#flip-item")).to_be_hidden()
    page.click("#tab-adjust")
    expect(page.locator("#flips")).to_be_hidden()
    expect(page.locator("#opacity-input")).to_be_visible()


BACKGROUNDS = [
    ("Sunset gradient", "linear-gradient(160deg, #f6d365 0%, #fda085 50%, #f5576c 100%)"),
    ("Glow gradient", "radial-gradient(#ffffff 0%, #b8c6db 100%)"),
    ("Polka dots", "dots(#e63946, #fde2e4, 24)"),
    ("Stripes", "stripes(#dde7fb, #ffffff, 28)"),
    ("Grid paper", "grid(#b9cbe4, #ffffff, 24)"),
    ("Checks", "checks(#264d3b, #f6f1e7, 32)"),
    ("Kraft paper", "paper(kraft)"),
    ("Linen paper", "paper(linen)"),
    ("Watercolour paper", "paper(watercolour)"),
]


def test_every_kind_of_background_is_chosen_in_the_panel_and_is_the_export(page):
    """Each gradient, pattern and paper, picked from the Background tab, shows on the canvas with
    the renderer's pixels; a turned photo over the edge sits on top, as in the export."""
    new_collage(page, "Backgrounds", "sideBySide")
    page.set_input_files("#file-input", [str(SAMPLES / "coffee.png")])
    expect(page.locator(".item")).to_have_count(1, timeout=30000)
    saved(page)
    cid = page.url.split("#/c/")[1]
    photo = api(page, f"/api/collages/{cid}")["collage"]["items"][0]["id"]
    edit(page, cid, [{"op": "resizeItem", "id": photo, "frame": {"x": 700, "y": -80, "width": 600, "height": 500}},
                     {"op": "rotateItem", "id": photo, "degrees": 14}])
    reopen(page)
    page.click("#tab-background")
    for name, text in BACKGROUNDS:
        page.click(f"#swatches button[title='{name}']")
        saved(page)
        assert api(page, f"/api/collages/{cid}")["collage"]["style"]["background"] == text
        expect(page.locator(f"#swatches button[title='{name}']")).to_have_attribute("aria-pressed", "true")
        expect(page.locator("#canvas")).to_have_attribute("data-background", text, timeout=20000)
        # A fine pattern shifts by a fraction of a pixel when the export is resized to the
        # screenshot's size (which may be a pixel off); blurring both by a pixel compares the
        # pattern's colours, size and place rather than that phase.
        assert_canvas_is_export(page, f"bg-{name.split()[0]}", blur=text.startswith(("dots", "stripes", "grid", "checks")))
        page.click("#tab-background")

    # A gradient's controls: the angle turns it, a colour is added and one taken away.
    page.click("#swatches button[title='Peach gradient']")
    saved(page)
    expect(page.locator("#background-gradient")).to_be_visible()
    page.fill("#gradient-angle", "45")
    saved(page)
    page.click("#gradient-add")
    saved(page)
    assert api(page, f"/api/collages/{cid}")["collage"]["style"]["background"] == \
        "linear-gradient(45deg, #ff9a9e 0%, #fad0c4 50%, #ffffff 100%)"
    page.click("#gradient-radial")
    saved(page)
    page.click("#gradient-stops button[aria-label='Remove colour 1']")
    saved(page)
    assert api(page, f"/api/collages/{cid}")["collage"]["style"]["background"] == \
        "radial-gradient(#fad0c4 0%, #ffffff 100%)"
    expect(page.locator("#gradient-angle-row")).to_be_hidden()
    # A pattern's size; a plain colour takes the pattern's place and its controls go.
    page.click("#swatches button[title='Checks']")
    saved(page)
    page.fill("#pattern-scale", "60")
    saved(page)
    assert api(page, f"/api/collages/{cid}")["collage"]["style"]["background"] == "checks(#264d3b, #f6f1e7, 60)"
    page.click("#swatches button[title='Mint']")
    saved(page)
    expect(page.locator("#background-pattern")).to_be_hidden()
    assert api(page, f"/api/collages/{cid}")["collage"]["style"]["background"] == "#dcefe6"
    # Undo brings the pattern back, canvas and all.
    page.click("#undo")
    saved(page)
    expect(page.locator("#background-pattern")).to_be_visible()


def test_a_bad_background_from_the_api_is_refused_with_its_reason(page):
    page.fill("#create-form input[name=title]", "Bad background")
    page.click("#create-form button[type=submit]")
    expect(page.locator("#editor-view")).to_be_visible()
    saved(page)
    cid = page.url.split("#/c/")[1]
    base = page.url.split("#")[0].rstrip("/")
    token = api(page, "/api/session")["token"]
    version = api(page, f"/api/collages/{cid}")["version"]
    for text, reason in [("linear-gradient(#fff)", "a gradient takes 2 to 4 colours, got 1"),
                         ("dots(#fff, #000, 1e300)", "a pattern's size must be a number of points from 4 to 400"),
                         ("paper(cardboard)", "expected a paper: kraft, linen, watercolour")]:
        response = page.request.post(
            f"{base}/api/collages/{cid}/edits",
            data=json.dumps({"version": version, "edits": [{"op": "setStyle", "style": {"background": text}}]}),
            headers={"Content-Type": "application/json", "X-Collage-Token": token})
        assert response.status == 422, response.text()
        assert reason in response.text() and "style.background" in response.text(), response.text()
    assert api(page, f"/api/collages/{cid}")["version"] == version
    drawn = page.request.get(f"{base}/api/collages/{cid}/background?scale=1e300", headers={"X-Collage-Token": token})
    assert drawn.status == 422, drawn.text()


def test_filters_and_adjustments_are_chosen_on_the_photo_itself_and_are_the_export(page):
    """The filter tray shows the selected photo with each filter, drawn by the renderer; a filter,
    its strength and an adjustment are saved, and the canvas (a turned photo over the edge) is
    the export."""
    new_collage(page, "Filters", "sideBySide")
    page.set_input_files("#file-input", [str(SAMPLES / "coffee.png"), str(SAMPLES / "rocket.jpg")])
    expect(page.locator(".item")).to_have_count(2, timeout=30000)
    saved(page)
    cid = page.url.split("#/c/")[1]
    coffee, rocket = [item["id"] for item in api(page, f"/api/collages/{cid}")["collage"]["items"]]
    edit(page, cid, [{"op": "resizeItem", "id": coffee, "frame": {"x": -100, "y": 150, "width": 700, "height": 800}},
                     {"op": "rotateItem", "id": coffee, "degrees": -9}])
    reopen(page)
    page.locator(f".item[data-id='{coffee}']").click(position={"x": 300, "y": 300})
    page.click("#tab-adjust")
    expect(page.locator("#photo-look")).to_be_visible()
    options = page.locator("#filter-tray .filter-option")
    expect(options).to_have_count(13)
    # Every preview is the photo itself, drawn by the renderer with that filter.
    for _ in range(300):
        if page.evaluate(
                "[...document.querySelectorAll('#filter-tray img')].every((image) => image.complete && image.naturalWidth > 0)"):
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError("the filter previews did not load")
    page.locator("#filter-tray").screenshot(path="/tmp/filter-tray.png")
    expect(page.locator("#filter-tray [data-filter='none']")).to_have_attribute("aria-pressed", "true")
    page.click("#filter-tray [data-filter='film']")
    saved(page)
    assert item_of(page, cid, coffee)["look"] == {"filter": {"id": "film", "strength": 1}}
    expect(page.locator("#filter-tray [data-filter='film']")).to_have_attribute("aria-pressed", "true")
    page.fill("#filter-strength", "60")
    saved(page)
    page.fill("#adjust-warmth", "40")
    saved(page)
    assert item_of(page, cid, coffee)["look"] == {"filter": {"id": "film", "strength": 0.6}, "adjustments": {"warmth": 40}}
    # The rocket in Noir, from its own tray.
    page.locator(f".item[data-id='{rocket}']").click(position={"x": 100, "y": 300})
    page.click("#filter-tray [data-filter='noir']")
    saved(page)
    assert item_of(page, cid, rocket)["look"]["filter"]["id"] == "noir"
    expect(page.locator(".item.photo img[src^='blob:']")).to_have_count(2, timeout=20000)
    page.wait_for_timeout(500)
    assert_canvas_is_export(page, "filters")
    # Reset takes the adjustments away and None the filter; each is one undoable step.
    page.locator(f".item[data-id='{coffee}']").click(position={"x": 300, "y": 300})
    page.click("#adjust-reset")
    saved(page)
    assert item_of(page, cid, coffee)["look"] == {"filter": {"id": "film", "strength": 0.6}}
    page.click("#filter-tray [data-filter='none']")
    saved(page)
    assert "look" not in item_of(page, cid, coffee)
    page.click("#undo")
    saved(page)
    assert item_of(page, cid, coffee)["look"]["filter"]["id"] == "film"


def test_a_polaroid_taken_away_takes_the_shadow_it_brought(page):
    """Polaroid comes with a shadow; None took the card away and left the shadow, which nobody
    had asked for. A shadow changed since stays: it is the person's now."""
    new_collage(page, "Card", "grid2x2")
    page.set_input_files("#file-input", [str(SAMPLES / "chelsea.png")])
    expect(page.locator(".item")).to_have_count(1, timeout=30000)
    saved(page)
    cid = page.url.split("#/c/")[1]
    cat = api(page, f"/api/collages/{cid}")["collage"]["items"][0]["id"]
    box = page.locator(f".item[data-id='{cat}']").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.click("#frame-item")
    page.click("#frame-styles button[data-frame='polaroid']")
    saved(page)
    expect(page.locator("#photo-shadow")).to_be_checked()
    page.click("#frame-styles button[data-frame='']")
    saved(page)
    look = item_of(page, cid, cat).get("look", {})
    assert "border" not in look and "shadow" not in look, look
    expect(page.locator("#photo-shadow")).not_to_be_checked()
    # Again, with the shadow moved further down before the card goes: the shadow stays.
    page.click("#frame-styles button[data-frame='polaroid']")
    saved(page)
    page.fill("#photo-shadow-distance", "14")
    saved(page)
    page.click("#frame-styles button[data-frame='']")
    saved(page)
    look = item_of(page, cid, cat).get("look", {})
    assert "border" not in look and look["shadow"]["y"] == 14, look


def test_shapes_frames_and_shadows_are_picked_in_the_editor_take_clicks_inside_and_are_the_export(page):
    """The hearts layout cuts its photos to hearts; the toolbar's Shape and Frame open the Adjust
    tab where a star, a polaroid card and a drop shadow are picked. Clicks land only inside a
    shape, and the canvas (a framed photo turned over the edge among them) is the export."""
    new_collage(page, "Shapes", "hearts")
    page.set_input_files("#file-input", [str(SAMPLES / name) for name in ("coffee.png", "chelsea.png", "rocket.jpg")])
    expect(page.locator(".item")).to_have_count(3, timeout=30000)
    saved(page)
    cid = page.url.split("#/c/")[1]
    items = api(page, f"/api/collages/{cid}")["collage"]["items"]
    assert [item["look"].get("shape") for item in items] == ["heart"] * 3
    coffee, cat, rocket = (item["id"] for item in items)
    expect(page.locator(".item.shaped")).to_have_count(3)

    # A click in a heart's corner, outside the heart, reaches what is below (the bare canvas).
    heart = page.locator(f".item[data-id='{coffee}']")
    box = heart.bounding_box()
    page.mouse.click(box["x"] + 4, box["y"] + box["height"] - 4)
    assert page.evaluate("() => document.querySelector('.item.selected')?.dataset.id ?? null") is None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(heart).to_have_class(re.compile(r"\bselected\b"))

    # Shape: the coffee becomes a star, from the toolbar's Shape button.
    page.click("#shape-item")
    expect(page.locator("#shape-tray")).to_be_visible()
    page.click("#shape-tray button[data-shape='star']")
    saved(page)
    assert item_of(page, cid, coffee)["look"]["shape"] == "star"
    expect(page.locator("#shape-tray button[data-shape='star']")).to_have_attribute("aria-pressed", "true")

    # Frame: the cat on a polaroid card with a shadow.
    cat_box = page.locator(f".item[data-id='{cat}']").bounding_box()
    page.mouse.click(cat_box["x"] + cat_box["width"] / 2, cat_box["y"] + cat_box["height"] / 2)
    page.click("#frame-item")
    page.click("#frame-styles button[data-frame='polaroid']")
    saved(page)
    expect(page.locator("#frame-options")).to_be_visible()
    page.click("#frame-colours button[title='Cream frame']")
    saved(page)
    # A polaroid card comes with its shadow, or white on white it would not be seen.
    expect(page.locator("#photo-shadow")).to_be_checked()
    page.fill("#photo-shadow-distance", "14")
    saved(page)
    look = item_of(page, cid, cat)["look"]
    assert look["border"] == {"style": "polaroid", "width": 16, "color": "#f6f0e2"}, look
    assert look["shadow"]["blur"] == 10 and look["shadow"]["y"] == 14 and look["shadow"]["x"] == 0, look
    # A polaroid card takes clicks anywhere on it, even where its heart leaves the card bare.
    expect(page.locator(f".item[data-id='{cat}']")).not_to_have_class(re.compile(r"\bshaped\b"))

    # The rocket, turned over the canvas's edge with a navy line along its heart.
    edit(page, cid, [
        {"op": "setStyle", "style": {"background": "#efe6d8", "spacing": 24, "padding": 24, "cornerRadius": 18}},
        {"op": "resizeItem", "id": rocket, "frame": {"x": 840, "y": 520, "width": 460, "height": 420}},
        {"op": "rotateItem", "id": rocket, "degrees": -16},
        {"op": "setLook", "id": rocket, "look": {"shape": "heart", "border": {"style": "line", "width": 14, "color": "#1f3a5f"},
                                                 "shadow": {"color": "#00000066", "blur": 6, "x": 12, "y": 12}}},
    ])
    reopen(page)
    expect(page.locator(".item .clip.drawn")).to_have_count(3, timeout=30000)
    page.wait_for_timeout(600)
    assert_canvas_is_export(page, "shapes")

    # Back to None and a rectangle: one undoable step each, and the photo is plain again.
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.click("#shape-item")
    page.click("#shape-tray button[data-shape='rectangle']")
    saved(page)
    assert "shape" not in item_of(page, cid, coffee).get("look", {})
    page.click("#undo")
    saved(page)
    assert item_of(page, cid, coffee)["look"]["shape"] == "star"


def test_auto_sets_exposure_and_white_balance_from_the_photo_in_one_step(page, tmp_path):
    """A photo taken too dark under warm light: Auto in the Adjust tab brightens and cools it
    as one undoable step, and the sliders show what it set."""
    from PIL import Image
    photo = Image.open(SAMPLES / "motorcycle_left.png").convert("RGB")

    def spoil(value, gain):
        linear = (value / 255) ** 2.2 * gain
        return round(255 * min(1, linear) ** (1 / 2.2))
    lut = [spoil(v, 0.55) for v in range(256)] + [spoil(v, 0.42) for v in range(256)] + [spoil(v, 0.3) for v in range(256)]
    spoilt = tmp_path / "dark-warm.png"
    photo.point(lut).save(spoilt)
    new_collage(page, "Auto", "sideBySide")
    page.set_input_files("#file-input", [str(spoilt)])
    expect(page.locator(".item")).to_have_count(1, timeout=30000)
    saved(page)
    cid = page.url.split("#/c/")[1]
    item = api(page, f"/api/collages/{cid}")["collage"]["items"][0]["id"]
    page.locator(".item").click()
    page.click("#tab-adjust")
    expect(page.locator("#adjust-reset")).to_be_disabled()
    page.click("#adjust-auto")
    # The sliders are set once the server has read the photo and the step is saved.
    expect(page.locator("#adjust-reset")).to_be_enabled(timeout=20000)
    saved(page)
    adjustments = item_of(page, cid, item)["look"]["adjustments"]
    assert adjustments["exposure"] > 20 and adjustments["warmth"] < -10, adjustments
    expect(page.locator("#adjust-exposure")).to_have_value(str(round(adjustments["exposure"])))
    page.click("#undo")
    saved(page)
    assert "look" not in item_of(page, cid, item)


def test_a_blurred_photo_background_is_picked_in_the_background_tab_and_is_the_export(page):
    """One of the collage's own photos, blurred, behind circles: picked from the Background
    tab's Photo row, softened with its Blur slider, shown with the renderer's pixels."""
    new_collage(page, "Backdrop", "hearts")
    page.set_input_files("#file-input", [str(SAMPLES / name) for name in ("coffee.png", "chelsea.png")])
    expect(page.locator(".item")).to_have_count(2, timeout=30000)
    saved(page)
    cid = page.url.split("#/c/")[1]
    coffee = api(page, f"/api/collages/{cid}")["collage"]["items"][0]["content"]["ref"]
    page.click("#tab-background")
    page.click(f"#background-photos button[data-ref='{coffee}']")
    saved(page)
    style = api(page, f"/api/collages/{cid}")["collage"]["style"]
    assert style["background"] == f"photo({coffee}, 24)" and style["spacing"] == 30, style
    expect(page.locator("#background-blur-row")).to_be_visible()
    page.fill("#background-blur", "40")
    saved(page)
    background = f"photo({coffee}, 40)"
    assert api(page, f"/api/collages/{cid}")["collage"]["style"]["background"] == background
    expect(page.locator("#canvas")).to_have_attribute("data-background", background, timeout=20000)
    expect(page.locator(".item .clip.drawn")).to_have_count(2, timeout=30000)
    page.wait_for_timeout(400)
    assert_canvas_is_export(page, "backdrop")
