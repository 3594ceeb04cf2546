"""Subjects found in the background: photos uploaded in the editor are analysed one at a time
at low priority, and the tray marks those whose lift answers at once."""
import pytest
from playwright.sync_api import expect

from test_editor import api, new_collage, add_photos


def test_uploaded_photos_are_made_ready_to_lift_in_the_background(page):
    if not api(page, "/api/session")["stickers"]:
        pytest.skip("the subject model is not installed (scripts/fetch-model)")
    new_collage(page, "Ready", layout="grid2x2")
    add_photos(page, ["coffee.png", "chelsea.png"])
    # Both photos get their subjects found without anyone asking, and the tray says so.
    ready = page.locator("#photo-tray button[data-subject=ready]")
    expect(ready).to_have_count(2, timeout=60000)
    expect(page.locator("#tray-subjects")).to_be_hidden()
    photos = {p["name"]: p["subject"] for p in api(page, "/api/photos")}
    assert photos["coffee.png"] == "ready" and photos["chelsea.png"] == "ready", photos
    assert "ready to lift" in ready.first.get_attribute("title")
