"""The smart layout in the editor: made for the photos, shuffled, with a hero, kept through
style changes, and drawn exactly as the export."""
from PIL import ImageChops, ImageStat
from playwright.sync_api import expect

from test_editor import (ROOT, SCREENSHOTS, add_photos, api, canvas_shot, collage_id, export_png, new_collage,
                         saved, wait_for_images)


def test_smart_layout_keeps_every_photo_whole_shuffles_and_makes_a_hero(page):
    new_collage(page, "Smart", layout="strip")
    add_photos(page, ["astronaut.png", "coffee.png", "chelsea.png", "rocket.jpg", "horse.png"])
    cid = collage_id(page)
    page.click("#tab-layouts")
    expect(page.locator("#smart-shuffle")).to_be_disabled()
    page.click("#smart-layout")
    saved(page)
    expect(page.locator("#smart-layout")).to_have_attribute("aria-pressed", "true")
    doc = api(page, f"/api/collages/{cid}")
    collage = doc["collage"]
    assert "template" not in collage or collage["template"] is None
    assert collage["arrangement"]["seed"] == 0
    # Each photo's frame has the photo's own shape (the default allows a crop of a tenth).
    for item in collage["items"]:
        media = doc["media"][item["content"]["ref"]]
        frame = item["frame"]
        ratio = (frame["width"] / frame["height"]) / (media["width"] / media["height"])
        assert 0.89 <= ratio <= 1.12, (item["id"], ratio)

    page.click("#smart-shuffle")
    saved(page)
    shuffled = api(page, f"/api/collages/{cid}")["collage"]
    assert shuffled["arrangement"]["seed"] == 1
    assert [i["frame"] for i in shuffled["items"]] != [i["frame"] for i in collage["items"]]

    # The coffee becomes the hero: clearly the largest.
    coffee = next(i for i in shuffled["items"] if doc["media"][i["content"]["ref"]]["width"] == 600)
    page.locator(f".item[data-id='{coffee['id']}']").click()
    page.click("#smart-hero")
    saved(page)
    expect(page.locator("#smart-hero")).to_have_attribute("aria-pressed", "true")
    hero = api(page, f"/api/collages/{cid}")["collage"]
    areas = {i["id"]: i["frame"]["width"] * i["frame"]["height"] for i in hero["items"]}
    assert all(areas[coffee["id"]] > 1.5 * area for key, area in areas.items() if key != coffee["id"]), areas

    # Pressed again, the photo is no longer the hero.
    page.click("#tab-layouts")
    page.click("#smart-hero")
    saved(page)
    expect(page.locator("#smart-hero")).to_have_attribute("aria-pressed", "false")
    assert "hero" not in api(page, f"/api/collages/{cid}")["collage"]["arrangement"]
    page.click("#smart-hero")
    saved(page)

    # More spacing: the layout is made again, gaps exact, with the same seed and hero.
    api_version = api(page, f"/api/collages/{cid}")["version"]
    page.click("#tab-background")
    page.locator("#spacing-input").fill("30")
    page.locator("#spacing-input").dispatch_event("change")
    saved(page)
    spaced_doc = api(page, f"/api/collages/{cid}")
    spaced = spaced_doc["collage"]
    assert spaced["style"]["spacing"] == 30 and spaced["arrangement"]["hero"] == coffee["id"]
    # One step: the spacing and the layout made again for it.
    assert spaced_doc["version"] == api_version + 1
    frames = [i["frame"] for i in spaced["items"]]
    # Every photo that has a neighbour to its right or below meets it exactly 30 points away.
    right = max(f["x"] + f["width"] for f in frames)
    for f in frames:
        if f["x"] + f["width"] < right - 0.5:
            assert any(abs(g["x"] - (f["x"] + f["width"] + 30)) < 0.01 for g in frames), f

    # What the canvas shows is what exports.
    wait_for_images(page)
    shot = canvas_shot(page)
    if SCREENSHOTS:
        page.click("#tab-layouts")
        page.wait_for_timeout(300)
        page.screenshot(path=str(ROOT / "docs/images/editor-smart-layout.jpg"), type="jpeg", quality=80)
    exported = export_png(page, max(shot.size)).convert("RGB").resize(shot.size)
    difference = ImageStat.Stat(ImageChops.difference(exported, shot)).mean
    assert max(difference) < 12, f"mean difference per channel {difference}"

    # A template takes over again.
    page.click("#tab-layouts")
    page.click("#layout-grid .layout-option[aria-label^='Grid 3×2,']")
    saved(page)
    expect(page.locator("#smart-layout")).to_have_attribute("aria-pressed", "false")
    assert "arrangement" not in api(page, f"/api/collages/{cid}")["collage"]


def test_new_from_photos_offers_a_smart_layout_first(page):
    page.set_input_files("#start-photos", [str(ROOT / "samples" / name) for name in ["coffee.png", "rocket.jpg", "horse.png"]])
    # The dialog's title reads "Choose a layout" before the upload too: wait for what follows it.
    expect(page.locator("#suggest-text")).to_contain_text("For your 3 photos", timeout=60000)
    smart = page.locator("#suggest-smart")
    expect(smart).to_be_visible()
    expect(smart).to_contain_text("Made for your 3 photos")
    smart.click()
    # Making the collage crops each photo around its subject (the model runs if the background
    # analysis has not reached it yet): seconds on a busy two-core machine.
    expect(page.locator("#editor-view")).to_be_visible(timeout=30000)
    saved(page)
    doc = api(page, f"/api/collages/{collage_id(page)}")
    assert doc["version"] == 1 and doc["collage"]["arrangement"]["seed"] == 0 and len(doc["collage"]["items"]) == 3
    page.click("#tab-layouts")
    expect(page.locator("#smart-layout")).to_have_attribute("aria-pressed", "true")
