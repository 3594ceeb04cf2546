"""The export dialog's animated formats: the collage assembling itself, previewed on the canvas
with the renderer's own frames, then downloaded as a video a phone plays."""
import json
import os
import subprocess

from playwright.sync_api import expect

from test_editor import add_photos, new_collage

SHOTS = os.environ.get("COLLAGE_BROWSER_SHOTS")


def test_a_collage_exports_as_an_mp4_after_a_preview(page, tmp_path):
    new_collage(page, title="Trip", layout="sideBySide")
    add_photos(page, ["coffee.png", "rocket.jpg"])
    page.click("#export-button")
    page.select_option("#export-form select[name=format]", "video-mp4")
    # Still-image sizes give way to the animation's own settings.
    expect(page.locator("#motion-field")).to_be_visible()
    expect(page.locator("#size-kind-field")).to_be_hidden()
    expect(page.locator("#export-copy")).to_be_hidden()
    page.select_option("#export-form select[name=motion]", "slide")
    page.fill("#export-form input[name=duration]", "3")
    page.select_option("#export-form select[name=videoSize]", "720")
    expect(page.locator("#export-pixels")).to_contain_text("720 × 720 px, 3 s at 30 frames a second")
    page.click("#video-preview-button")
    # The animation plays over the canvas, exactly where the collage is, the dialog put aside.
    preview = page.locator("#stage .animation-preview")
    expect(preview).to_be_visible(timeout=30000)
    expect(page.locator("#export-dialog")).to_be_hidden()
    page.wait_for_function("document.querySelector('#stage .animation-preview').naturalWidth > 0")
    natural = page.evaluate("document.querySelector('#stage .animation-preview').naturalWidth")
    shown = page.locator("#canvas").bounding_box()
    drawn = preview.bounding_box()
    assert all(abs(drawn[key] - shown[key]) < 0.5 for key in shown), f"{drawn} over a canvas at {shown}"
    assert 240 <= natural <= 720 and abs(natural - shown["width"]) <= 2, f"{natural} px drawn for {shown}"
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, "export-video.png"))
    # A new window size moves the canvas: the preview ends rather than cover the wrong place.
    page.set_viewport_size({"width": 1100, "height": 760})
    expect(preview).to_have_count(0)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.click("#export-button")
    page.click("#video-preview-button")
    expect(preview).to_be_visible(timeout=30000)
    # Back to the export, its settings as they were.
    page.click("#animation-back")
    expect(page.locator("#export-dialog")).to_be_visible()
    expect(preview).to_have_count(0)
    expect(page.locator("#export-pixels")).to_contain_text("720 × 720 px, 3 s at 30 frames a second")
    with page.expect_download(timeout=60000) as download_info:
        page.click("#export-download")
    download = download_info.value
    assert download.suggested_filename == "Trip.mp4"
    path = tmp_path / "trip.mp4"
    download.save_as(path)
    probe = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-count_frames", "-show_entries",
         "stream=codec_name,pix_fmt,width,height,nb_read_frames", "-of", "json", str(path)],
        check=True, capture_output=True, text=True).stdout)["streams"][0]
    assert probe == {"codec_name": "h264", "width": 720, "height": 720, "pix_fmt": "yuv420p", "nb_read_frames": "90"}
    expect(page.locator("#export-dialog")).to_be_hidden()
    # Back to a picture: the still's sizes return.
    page.click("#export-button")
    page.select_option("#export-form select[name=format]", "png")
    expect(page.locator("#size-kind-field")).to_be_visible()
    expect(page.locator("#motion-field")).to_be_hidden()


def test_on_a_phone_the_animated_export_keeps_download_in_reach(browser, server):
    from conftest import open_page
    phone = {"width": 390, "height": 844}
    with open_page(browser, server, viewport=phone, has_touch=True, is_mobile=True, device_scale_factor=2) as page:
        new_collage(page, title="Phone trip", layout="sideBySide")
        add_photos(page, ["coffee.png", "rocket.jpg"])
        page.click("#export-button")
        page.select_option("#export-form select[name=format]", "video-gif")
        page.click("#video-preview-button")
        expect(page.locator("#stage .animation-preview")).to_be_visible(timeout=30000)
        bar = page.locator("#animation-bar").bounding_box()
        assert bar and bar["y"] + bar["height"] <= phone["height"] and bar["width"] <= phone["width"], f"bar at {bar}"
        if SHOTS:
            page.screenshot(path=os.path.join(SHOTS, "export-video-phone.png"))
        # The collage under it cannot be edited meanwhile; Escape ends the preview, focus back on Export.
        assert page.evaluate("document.getElementById('canvas').inert && document.getElementById('panel').inert")
        page.keyboard.press("Escape")
        expect(page.locator("#stage .animation-preview")).to_have_count(0)
        expect(page.locator("#animation-bar")).to_be_hidden()
        expect(page.locator("#export-button")).to_be_focused()
        assert not page.evaluate("document.getElementById('canvas').inert")
        page.click("#export-button")
        # The still's size, asked for as the dialog opened, does not write over the animation's.
        expect(page.locator("#export-pixels")).to_contain_text("480 × 480 px, 6 s at 15 frames a second")
        expect(page.locator("#export-quality")).to_be_hidden()
        box = page.locator("#export-download").bounding_box()
        assert box and box["y"] + box["height"] <= phone["height"], f"Download at {box} on an {phone} screen"
        expect(page.locator("#export-form select[name=format]")).to_have_value("video-gif")
