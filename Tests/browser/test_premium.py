"""Collage Premium in the browser: locked layouts, trying one on your own collage, unlocking with
a key without a reload, the library's ways in; and the export dialog's Copy image and Share."""
import io
import re

import pytest
from PIL import Image, ImageChops, ImageStat
from playwright.sync_api import expect

from conftest import open_page, signed_licence_key
from test_editor import (ROOT, SCREENSHOTS, add_photos, api, canvas_shot, collage_id, export_png, new_collage,
                         saved, wait_for_images)


def layout_button(page, name):
    return page.locator(f"#layout-grid .layout-option[aria-label^='{name},']")


def test_a_premium_layout_is_tried_on_the_collage_then_unlocked_without_a_reload(page):
    new_collage(page, "Trip")
    add_photos(page, ["astronaut.png", "coffee.png", "chelsea.png"])
    # The photos' subjects found first: the layout tried and the one unlocked crop them alike.
    wait_for_images(page)
    cid = collage_id(page)
    version = api(page, f"/api/collages/{cid}")["version"]
    page.evaluate("window.sameDocument = true")
    page.click("#tab-layouts")
    magazine = layout_button(page, "Magazine")
    expect(magazine).to_have_attribute("aria-label", "Magazine, 3 frames, premium, locked")
    expect(magazine.locator(".premium")).to_have_text("Pro")
    expect(magazine.locator(".premium svg")).to_have_count(1)
    expect(layout_button(page, "Grid").locator(".premium")).to_have_count(0)

    magazine.click()
    dialog = page.locator("#unlock-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#unlock-title")).to_have_text("Magazine is a Premium layout")
    expect(page.locator("#unlock-layouts figure.chosen")).to_have_text("Magazine")
    premium_count = sum(1 for template in api(page, "/api/templates") if template["premium"])
    expect(page.locator("#unlock-layouts figure")).to_have_count(premium_count)
    if SCREENSHOTS:
        page.wait_for_timeout(300)
        page.screenshot(path=str(ROOT / "docs/images/unlock-sheet.jpg"), type="jpeg", quality=80)

    # Trying it draws the server's magazine layout on the canvas and saves nothing.
    page.click("#unlock-try")
    expect(dialog).to_be_hidden()
    expect(page.locator("#preview-banner")).to_contain_text("Trying Magazine: nothing is saved until you unlock it")
    expect(magazine).to_have_attribute("aria-pressed", "true")
    stored = api(page, f"/api/collages/{cid}")
    assert stored["collage"]["template"] == "grid2x2" and stored["version"] == version
    wait_for_images(page)
    if SCREENSHOTS:
        page.wait_for_timeout(300)
        page.screenshot(path=str(ROOT / "docs/images/premium-preview.jpg"), type="jpeg", quality=80)
    page.evaluate("document.getElementById('preview-banner').hidden = true")
    preview = canvas_shot(page)
    page.evaluate("document.getElementById('preview-banner').hidden = false")

    # Wrong keys are refused in the sheet, each with its own words; nothing changes.
    page.click("#preview-unlock")
    expect(dialog).to_be_visible()
    page.click("#unlock-submit")
    expect(page.locator("#unlock-error")).to_contain_text("Paste your licence key first")
    good = signed_licence_key("Grace Hopper <grace@example.com>")
    for key, words in [("XXXX-1234-ABCD", "This is not a Collage licence key"),
                       (good[:-25], "The licence key is cut short: its signature has 61 of its 86 characters")]:
        page.fill("#unlock-key", key)
        page.click("#unlock-submit")
        expect(page.locator("#unlock-error")).to_contain_text(words)
        expect(page.locator("#unlock-key")).to_have_attribute("aria-invalid", "true")
    assert api(page, "/api/licence")["unlocked"] is False
    assert api(page, f"/api/collages/{cid}")["collage"]["template"] == "grid2x2"

    page.fill("#unlock-key", good)
    page.click("#unlock-submit")
    expect(dialog).to_be_hidden()
    expect(page.locator(".toast.success")).to_contain_text("Collage Premium unlocked for Grace Hopper")
    saved(page)
    expect(page.locator("#preview-banner")).to_be_hidden()
    assert api(page, f"/api/collages/{cid}")["collage"]["template"] == "magazine"
    assert api(page, "/api/licence")["licence"]["licensee"] == "Grace Hopper <grace@example.com>"
    # Every lock is gone at once, and the page was never reloaded.
    expect(page.locator("#layout-grid .premium.locked")).to_have_count(0)
    expect(layout_button(page, "Triptych")).to_have_attribute("aria-label", "Triptych, 3 frames, premium")
    assert page.evaluate("window.sameDocument") is True
    layout_button(page, "Triptych").click()
    saved(page)
    assert api(page, f"/api/collages/{cid}")["collage"]["template"] == "triptych"

    # What the preview showed is what the unlocked layout exports.
    layout_button(page, "Magazine").click()
    saved(page)
    wait_for_images(page)
    exported = export_png(page, max(preview.size)).convert("RGB").resize(preview.size)
    difference = ImageStat.Stat(ImageChops.difference(exported, preview)).mean
    assert max(difference) < 12, f"mean difference per channel {difference}"


def test_back_to_my_layout_leaves_the_collage_as_it_was(page):
    new_collage(page, "Keep")
    add_photos(page, ["coffee.png", "chelsea.png"])
    cid = collage_id(page)
    version = api(page, f"/api/collages/{cid}")["version"]
    before = canvas_shot(page)
    page.click("#tab-layouts")
    layout_button(page, "Hero").click()
    page.click("#unlock-try")
    expect(page.locator("#preview-banner")).to_be_visible()
    expect(page.locator("#canvas")).to_have_class(re.compile(r"\bpreviewing\b"))
    # Nothing on the tried layout can be focused or dragged: it is not the collage.
    assert page.evaluate("document.getElementById('canvas').inert") is True
    page.evaluate("document.querySelector('#canvas .item').focus()")
    assert page.evaluate("document.activeElement.closest('#canvas') === null")
    box = page.locator("#canvas .item").first.bounding_box()
    page.mouse.move(box["x"] + 40, box["y"] + 40)
    page.mouse.down()
    page.mouse.move(box["x"] + 140, box["y"] + 120, steps=5)
    page.mouse.up()
    assert api(page, f"/api/collages/{cid}")["version"] == version
    page.click("#preview-end")
    expect(page.locator("#preview-banner")).to_be_hidden()
    wait_for_images(page)
    after = canvas_shot(page)
    assert max(ImageStat.Stat(ImageChops.difference(before, after)).mean) < 1
    # An edit while trying is made to the saved collage: the preview goes first.
    layout_button(page, "Hero").click()
    page.click("#unlock-try")
    expect(page.locator("#preview-banner")).to_be_visible()
    layout_button(page, "Strip").click()
    saved(page)
    expect(page.locator("#preview-banner")).to_be_hidden()
    stored = api(page, f"/api/collages/{cid}")["collage"]
    assert stored["template"] == "strip"
    # "Not now" closes the sheet and changes nothing.
    layout_button(page, "Brick").click()
    page.click("#unlock-cancel")
    expect(page.locator("#unlock-dialog")).to_be_hidden()
    assert api(page, f"/api/collages/{cid}")["collage"]["template"] == "strip"


def test_the_library_asks_before_making_a_collage_on_a_premium_layout(page):
    expect(page.locator("#create-template option[value=magazine]")).to_have_text("Magazine (Premium)")
    page.select_option("#create-template", "magazine")
    page.click("#create-form button[type=submit]")
    expect(page.locator("#unlock-dialog")).to_be_visible()
    expect(page.locator("#unlock-try")).to_be_hidden()
    page.click("#unlock-cancel")
    assert api(page, "/api/collages") == []
    page.click("#create-form button[type=submit]")
    page.fill("#unlock-key", signed_licence_key())
    page.click("#unlock-submit")
    expect(page.locator("#editor-view")).to_be_visible()
    saved(page)
    assert api(page, f"/api/collages/{collage_id(page)}")["collage"]["template"] == "magazine"
    page.click(".brand")
    expect(page.locator("#create-template option[value=magazine]")).to_have_text("Magazine ★")


@pytest.mark.unlocked
def test_a_licence_already_there_unlocks_the_page(page):
    expect(page.locator("#create-template option[value=triptych]")).to_have_text("Triptych ★")
    new_collage(page, "Unlocked", layout="triptych")
    page.click("#tab-layouts")
    expect(page.locator("#layout-grid .premium")).not_to_have_count(0)
    expect(page.locator("#layout-grid .premium.locked")).to_have_count(0)


def test_copy_image_puts_the_collage_on_the_clipboard(browser, server):
    with open_page(browser, server, viewport={"width": 1280, "height": 900}) as page:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server["url"].rstrip("/"))
        new_collage(page, "Clip")
        add_photos(page, ["coffee.png", "chelsea.png"])
        wait_for_images(page)
        page.click("#export-button")
        expect(page.locator("#export-copy")).to_be_visible()
        # The clipboard holds PNG whatever format is chosen.
        page.select_option("#export-form select[name=format]", "jpeg")
        page.select_option("#export-form select[name=sizeKind]", "size")
        page.fill("#export-form input[name=size]", "640")
        expect(page.locator("#export-pixels")).to_contain_text("640 × 640")
        page.click("#export-copy")
        expect(page.locator(".toast.success", has_text="Copied the collage as a PNG")).to_be_visible()
        expect(page.locator("#export-dialog")).to_be_hidden()
        pasted = page.evaluate("""async () => {
            const [item] = await navigator.clipboard.read();
            const blob = await item.getType('image/png');
            return [...new Uint8Array(await blob.arrayBuffer())];
        }""")
        image = Image.open(io.BytesIO(bytes(pasted)))
        assert image.format == "PNG" and image.size == (640, 640)
        exported = export_png(page, 640).convert("RGB")
        assert max(ImageStat.Stat(ImageChops.difference(image.convert("RGB"), exported)).mean) < 1


def test_share_shows_only_where_the_browser_can_share_files(browser, server):
    with open_page(browser, server, viewport={"width": 1280, "height": 900}) as page:
        new_collage(page, "No share")
        page.click("#export-button")
        # Chromium on Linux has no share sheet: the button is not offered.
        assert page.evaluate("typeof navigator.canShare") != "function" or not page.evaluate(
            "navigator.canShare({files: [new File([1], 'a.png', {type: 'image/png'})]})")
        expect(page.locator("#export-share")).to_be_hidden()
        expect(page.locator("#export-download")).to_be_visible()
    # Where the browser can share files (a phone, a Mac), Share… hands it the exported file.
    with open_page(browser, server, viewport={"width": 390, "height": 844}) as page:
        page.add_init_script("""
            navigator.canShare = (data) => !!data && Array.isArray(data.files);
            navigator.share = async (data) => {
                const file = data.files[0];
                window.shared = { name: file.name, type: file.type, size: file.size, title: data.title };
            };""")
        page.reload()
        new_collage(page, "Share me")
        add_photos(page, ["coffee.png"])
        page.click("#export-button")
        expect(page.locator("#export-share")).to_be_visible()
        page.click("#export-share")
        expect(page.locator("#export-dialog")).to_be_hidden()
        shared = page.evaluate("window.shared")
        assert shared["type"] == "image/jpeg" and shared["name"].endswith(".jpg") and shared["size"] > 1000
        assert shared["title"] == "Share me"
