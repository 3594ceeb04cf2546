"""A messenger sticker pack from the editor: the collage's stickers, a messenger chosen in the
Stickers panel's dialog, a count the messenger does not take said before anything is made, and
the downloaded zip holding pictures within the messenger's limits."""
import io
import os
import re
import zipfile

from PIL import Image
from playwright.sync_api import expect

from test_editor import collage_with_a_lifted_sticker, edit, reopen

SHOTS = os.environ.get("COLLAGE_BROWSER_SHOTS")


def test_a_collages_stickers_download_as_a_signal_pack(page, tmp_path):
    cid, sticker = collage_with_a_lifted_sticker(page, "Pack")
    edit(page, cid, [
        {"op": "addItem", "id": "s1", "content": {"type": "sticker", "ref": sticker["id"]},
         "frame": {"x": 500, "y": 250, "width": 300, "height": 300 * sticker["height"] / sticker["width"]}},
        # The same sticker twice is one sticker of the pack.
        {"op": "addItem", "id": "s2", "content": {"type": "sticker", "ref": sticker["id"]},
         "frame": {"x": 100, "y": 250, "width": 200, "height": 200 * sticker["height"] / sticker["width"]}},
    ])
    reopen(page)
    page.click("#tab-stickers")
    page.click("#pack-stickers")
    dialog = page.locator("#pack-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#pack-list img")).to_have_count(1)
    # WhatsApp takes 3 to 30, so the first messenger that takes one sticker is chosen; WhatsApp
    # says why it cannot, and offers nothing to download.
    expect(dialog.get_by_role("radio", name="Telegram")).to_have_attribute("aria-checked", "true")
    expect(page.locator("#pack-steps")).to_contain_text("@Stickers")
    # Telegram advises a white stroke: the list shows it; Signal's stickers have none.
    expect(page.locator("#pack-list")).to_have_class(re.compile(r"\boutlined\b"))
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "pack-dialog-telegram.png"))
    dialog.get_by_role("radio", name="WhatsApp").click()
    expect(page.locator("#pack-summary")).to_contain_text("A WhatsApp pack holds 3 to 30 stickers; this collage has 1")
    expect(page.locator("#pack-download")).to_be_disabled()
    dialog.get_by_role("radio", name="Signal").click()
    expect(page.locator("#pack-summary")).to_contain_text("1 sticker: PNG 512 × 512, each up to 300 KiB")
    expect(page.locator("#pack-list")).not_to_have_class(re.compile(r"\boutlined\b"))
    page.fill("#pack-form input[name=title]", "Coffee time")
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "pack-dialog.png"))
    with page.expect_download() as download_info:
        page.click("#pack-download")
    download = download_info.value
    assert download.suggested_filename == "Coffee-time-signal.zip"
    path = tmp_path / "pack.zip"
    download.save_as(path)
    with zipfile.ZipFile(path) as pack:
        assert pack.testzip() is None
        assert sorted(pack.namelist()) == ["01.png", "HOW-TO-ADD.txt"]
        picture = pack.read("01.png")
        assert len(picture) <= 300 * 1024
        image = Image.open(io.BytesIO(picture))
        assert image.size == (512, 512) and image.mode in ("RGBA", "P")
        # The subject in the middle, clear room in the 16 px margin.
        rgba = image.convert("RGBA")
        assert rgba.getpixel((256, 256))[3] > 0 and rgba.getpixel((8, 256))[3] == 0
        assert "Signal Desktop" in pack.read("HOW-TO-ADD.txt").decode()
    expect(dialog).to_be_hidden()
    expect(page.locator(".toast")).to_contain_text("Sticker pack downloaded")
    # Moving stickers: Signal takes them as animated PNG, which the dialog says; Telegram takes
    # video stickers.
    page.click("#pack-stickers")
    page.select_option("#pack-form select[name=motion]", "wiggle")
    dialog.get_by_role("radio", name="Signal").click()
    expect(page.locator("#pack-summary")).to_contain_text("1 moving sticker: animated PNG, 2 s loops, each up to 300 KiB")
    expect(page.locator("#pack-download")).to_be_enabled()
    dialog.get_by_role("radio", name="Telegram").click()
    expect(page.locator("#pack-summary")).to_contain_text("1 moving sticker: VP9 WebM video, 2 s loops, each up to 256 KB")
    with page.expect_download(timeout=60000) as moving_info:
        page.click("#pack-download")
    moving_path = tmp_path / "moving.zip"
    moving_info.value.save_as(moving_path)
    with zipfile.ZipFile(moving_path) as pack:
        assert "01.webm" in pack.namelist()
        video = pack.read("01.webm")
        assert video[:4] == bytes([0x1A, 0x45, 0xDF, 0xA3]) and len(video) <= 256_000
        guide = pack.read("HOW-TO-ADD.txt").decode()
        assert "each a VP9 WebM video of 512 × 512 px" in guide and "/newvideo" in guide, guide
