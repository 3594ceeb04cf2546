"""Sticker effects in the editor: chosen in the Stickers panel, drawn on the canvas with the
renderer's pixels, so the screen is the export for each of Comic, Puffy and Shiny."""
import json

import pytest
from PIL import ImageChops, ImageStat
from playwright.sync_api import expect

from test_editor import (MEAN_DIFFERENCE_BOUND, ROOT, SCREENSHOTS, add_photos, api, canvas_and_export, collage_id,
                         edit, new_collage, reopen, saved)


def test_each_effect_is_chosen_in_the_panel_and_is_the_export(page):
    session = api(page, "/api/session")
    if not session["stickers"]:
        pytest.skip("the subject model is not installed (scripts/fetch-model)")
    new_collage(page, title="Effects", layout="sideBySide")
    add_photos(page, ["coffee.png", "rocket.jpg"])
    cid = collage_id(page)
    doc = api(page, f"/api/collages/{cid}")["collage"]
    base = page.url.split("#")[0].rstrip("/")
    lifted = page.request.post(
        f"{base}/api/photos/{doc['items'][0]['content']['ref']}/stickers", data=json.dumps({"at": {"x": 0.45, "y": 0.4}}),
        headers={"Content-Type": "application/json", "X-Collage-Token": session["token"]})
    assert lifted.ok, lifted.text()
    sticker = lifted.json()
    edit(page, cid, [
        {"op": "setStyle", "style": {"background": "#f6f1e7", "spacing": 10, "padding": 10, "cornerRadius": 0}},
        {"op": "addItem", "id": "s1", "content": {"type": "sticker", "ref": sticker["id"]},
         "frame": {"x": 520, "y": 260, "width": 460, "height": 460 * sticker["height"] / sticker["width"]}},
        {"op": "rotateItem", "id": "s1", "degrees": -10},
    ])
    reopen(page)
    page.locator(".item.sticker").click()
    page.click("#tab-stickers")
    for effect in ["Comic", "Puffy", "Shiny"]:
        page.locator("#sticker-style .effects button", has_text=effect).click()
        saved(page)
        expect(page.locator("#sticker-style .effects button", has_text=effect)).to_have_attribute("aria-pressed", "true")
        item = next(i for i in api(page, f"/api/collages/{cid}")["collage"]["items"] if i["id"] == "s1")
        assert item["stickerStyle"]["effect"] == effect.lower()
        expect(page.locator(".item.sticker img[src^='blob:']")).to_have_count(1, timeout=20000)
        page.wait_for_timeout(600)
        if SCREENSHOTS and effect == "Comic":
            page.screenshot(path=str(ROOT / "docs/images/editor-sticker-comic.jpg"), type="jpeg", quality=80)
        shot, exported = canvas_and_export(page)
        difference = ImageStat.Stat(ImageChops.difference(exported, shot)).mean
        print(f"{effect}: mean difference per channel {difference}")
        assert max(difference) < MEAN_DIFFERENCE_BOUND, f"{effect}: mean difference per channel {difference}"
        page.locator(".item.sticker").click()
    # None takes the effect off.
    page.locator("#sticker-style .effects button", has_text="None").click()
    saved(page)
    item = next(i for i in api(page, f"/api/collages/{cid}")["collage"]["items"] if i["id"] == "s1")
    assert "effect" not in item["stickerStyle"]
