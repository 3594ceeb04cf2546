"""Sticker effects in the editor: chosen in the Stickers panel, drawn on the canvas with the
renderer's pixels, so the screen is the export for each of Comic, Halftone, Puffy and Shiny."""
from PIL import ImageChops, ImageStat
from playwright.sync_api import expect

from test_editor import MEAN_DIFFERENCE_BOUND, api, canvas_and_export, collage_with_a_lifted_sticker, edit, reopen, saved


def test_each_effect_is_chosen_in_the_panel_and_is_the_export(page):
    cid, sticker = collage_with_a_lifted_sticker(page, "Effects")
    edit(page, cid, [
        {"op": "setStyle", "style": {"background": "#f6f1e7", "spacing": 10, "padding": 10, "cornerRadius": 0}},
        {"op": "addItem", "id": "s1", "content": {"type": "sticker", "ref": sticker["id"]},
         "frame": {"x": 520, "y": 260, "width": 460, "height": 460 * sticker["height"] / sticker["width"]}},
        {"op": "rotateItem", "id": "s1", "degrees": -10},
    ])
    reopen(page)
    page.locator(".item.sticker").click()
    page.click("#tab-stickers")
    for effect in ["Comic", "Halftone", "Puffy", "Shiny"]:
        page.locator("#sticker-style .effects button", has_text=effect).click()
        saved(page)
        expect(page.locator("#sticker-style .effects button", has_text=effect)).to_have_attribute("aria-pressed", "true")
        item = next(i for i in api(page, f"/api/collages/{cid}")["collage"]["items"] if i["id"] == "s1")
        assert item["stickerStyle"]["effect"] == effect.lower()
        expect(page.locator(".item.sticker img[src^='blob:']")).to_have_count(1, timeout=20000)
        # The last look's drawing stays on screen until the new one arrives: wait for the new
        # look's, not only for a drawing (the plain sticker was shot as Comic).
        expect(page.locator(f".item.sticker img[data-look*='|{effect.lower()}|']")).to_have_count(1, timeout=20000)
        page.wait_for_timeout(600)
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
