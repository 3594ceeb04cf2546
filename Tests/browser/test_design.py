"""Browser tests of the editor's design: the side panel and its tabs, empty frames as drop
targets, the floating item tools, delete with undo, two tabs on one collage, the phone layout
with touch, "new from photos", and an automated accessibility check (axe-core)."""
import json
import math
import os
import re

import pytest
from playwright.sync_api import expect

from conftest import open_page
from test_editor import (ROOT, SAMPLES, SCREENSHOTS, add_photos, api, collage_id, edit, new_collage, reopen,
                         saved, wait_for_images)

PHONE = {"width": 390, "height": 844}
TABLET = {"width": 820, "height": 1180}
LAPTOP = {"width": 1280, "height": 900}


def document(page):
    return api(page, f"/api/collages/{collage_id(page)}")["collage"]


def saved_change(page, before):
    """Waits until the collage's saved version is past `before`: "All changes saved" may still
    be showing from the last change when a gesture's own change has not started yet."""
    for _ in range(100):
        current = api(page, f"/api/collages/{collage_id(page)}")["version"]
        if current > before:
            saved(page)
            return current
        page.wait_for_timeout(100)
    raise AssertionError(f"no change was saved after version {before}")


def set_range(page, selector, value):
    """Moves a slider as a hand does: `input` while dragging, `change` on release."""
    page.eval_on_selector(selector, """(input, value) => {
        input.value = value;
        input.dispatchEvent(new Event('input', { bubbles: true }));
        input.dispatchEvent(new Event('change', { bubbles: true }));
    }""", value)


@pytest.fixture(params=["laptop", "tablet", "phone"])
def device(request, browser, server):
    """The page on a laptop, a tablet and a phone (touch, a bottom sheet) in turn."""
    size = {"laptop": LAPTOP, "tablet": TABLET, "phone": PHONE}[request.param]
    phone = request.param == "phone"
    with open_page(browser, server, viewport=size, has_touch=phone, is_mobile=phone,
                   device_scale_factor=2 if phone else 1) as page:
        page.device = request.param
        yield page


def open_tab(page, name):
    """Shows a panel tab (on a phone, opens its sheet) unless it is showing already."""
    if not page.locator(f"#panel-{name}").is_visible():
        page.click(f"#tab-{name}")
    expect(page.locator(f"#panel-{name}")).to_be_visible()


def test_the_panel_tabs_switch_and_follow_the_keyboard(page):
    new_collage(page, layout="grid2x2")
    for name in ["layouts", "background", "stickers", "photos"]:
        page.click(f"#tab-{name}")
        expect(page.locator(f"#panel-{name}")).to_be_visible()
        expect(page.locator(f"#tab-{name}")).to_have_attribute("aria-selected", "true")
        assert page.locator(".tab-panel:visible").count() == 1
    # Arrow keys move along the tabs, as in any tab list.
    page.locator("#tab-photos").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#tab-layouts")).to_be_focused()
    expect(page.locator("#panel-layouts")).to_be_visible()


def test_an_empty_frame_is_filled_from_the_tray_by_plus_or_by_drag(device):
    page = device
    new_collage(page, layout="grid2x2")
    add_photos(page, ["coffee.png"])
    expect(page.locator(".slot-empty")).to_have_count(3)
    expect(page.locator("#photo-tray button")).to_have_count(1)
    # The "+" of the last frame opens the tray for that frame: the photo goes there, not in
    # the first empty one.
    page.click("button[aria-label='Add a photo to frame 4']")
    expect(page.locator("#tray-target")).to_contain_text("frame 4")
    page.locator("#photo-tray button").first.click()
    saved(page)
    items = document(page)["items"]
    assert [item.get("slot") for item in items] == [0, 3], items
    expect(page.locator("#tray-target")).to_be_hidden()
    if page.device == "phone":
        # The sheet closes once the photo is in, so the canvas shows it.
        expect(page.locator("#panel-photos")).to_be_hidden()
        page.click("button[aria-label='Add a photo to frame 3']")
        page.locator("#photo-tray button").first.click()
    else:
        # A tray photo dragged onto an empty frame fills that frame.
        page.locator("#photo-tray button").first.drag_to(page.locator(".slot-empty[data-slot='2']"))
    saved(page)
    assert sorted(item.get("slot") for item in document(page)["items"]) == [0, 2, 3]
    if page.device == "laptop":
        # A file dropped from the desktop onto the empty frame fills that frame.
        expect(page.locator(".slot-empty")).to_have_count(1)
        page.evaluate("""async () => {
            const blob = await (await fetch('/api/photos/%s/preview')).blob();
            const files = new DataTransfer();
            files.items.add(new File([blob], 'dropped.jpg', { type: 'image/jpeg' }));
            const slot = document.querySelector('.slot-empty');
            const box = slot.getBoundingClientRect();
            const at = { bubbles: true, cancelable: true, dataTransfer: files,
                clientX: box.left + box.width / 2, clientY: box.top + box.height / 2 };
            slot.dispatchEvent(new DragEvent('dragover', at));
            slot.dispatchEvent(new DragEvent('drop', at));
        }""" % api(page, "/api/photos")[0]["id"])
        expect(page.locator(".slot-empty")).to_have_count(0, timeout=30000)
        saved(page)
        assert sorted(item.get("slot") for item in document(page)["items"]) == [0, 1, 2, 3]
    # Replace: the selected photo's frame gets another picture and keeps its place.
    add = page.locator("#photo-tray button")
    count = add.count()
    page.set_input_files("#file-input", [str(SAMPLES / "chelsea.png")])
    expect(add).to_have_count(count + 1, timeout=30000)
    saved(page)
    # With a look of its own: removed and added again, a replaced photo lost its filter and
    # shape, and rose above the photos it lay under.
    slotted = [item for item in document(page)["items"] if item.get("slot") == 0][0]
    look = {"filter": {"id": "vintage", "strength": 1}, "shape": "heart", "opacity": 0.9}
    edit(page, collage_id(page), [{"op": "setLook", "id": slotted["id"], "look": look}])
    reopen(page)
    before = document(page)["items"]
    page.wait_for_timeout(300)  # on a phone, the canvas is fitted again as the sheet closes
    first = page.locator(f".item[data-id='{slotted['id']}']")
    first.click()
    expect(page.locator("#item-tools")).to_be_visible()
    page.click("#replace")
    expect(page.locator("#tray-target")).to_contain_text("in its place")
    chelsea = [photo for photo in api(page, "/api/photos") if photo["name"] == "chelsea.png"][0]
    page.click(f"#photo-tray button[data-photo='{chelsea['id']}']")
    saved(page)
    after = document(page)["items"]
    assert [item["id"] for item in after] == [item["id"] for item in before], "same items, same order"
    replaced = [item for item in after if item["id"] == slotted["id"]][0]
    assert replaced["content"]["ref"] == chelsea["id"] and replaced["frame"] == slotted["frame"]
    assert replaced.get("slot") == 0
    assert replaced["look"]["filter"]["id"] == "vintage" and replaced["look"]["shape"] == "heart", replaced["look"]
    assert page.locator(".item.selected").get_attribute("data-id") == slotted["id"]


def test_the_item_tools_float_beside_the_selection_and_delete_can_be_undone(device):
    page = device
    new_collage(page, layout="sideBySide")
    add_photos(page, ["coffee.png", "chelsea.png"])
    expect(page.locator("#item-tools")).to_be_hidden()
    photo = page.locator(".item").nth(1)
    photo.click()
    tools = page.locator("#item-tools")
    expect(tools).to_be_visible()
    # Beside the photo, not in a bar at the top of the page.
    tb, pb = tools.bounding_box(), photo.bounding_box()
    assert tb["y"] + tb["height"] <= pb["y"] + 2 or tb["y"] >= pb["y"] + pb["height"] - 2, (tb, pb)
    assert tb["x"] < pb["x"] + pb["width"] and tb["x"] + tb["width"] > pb["x"], (tb, pb)
    page.click("#delete-item")
    saved(page)
    assert len(document(page)["items"]) == 1
    undo = page.locator(".toast", has_text="Photo deleted").locator(".toast-action")
    undo.click()
    saved(page)
    assert len(document(page)["items"]) == 2
    expect(page.locator(".selection")).to_be_visible()


def test_background_swatches_and_sliders_show_what_they_set(device):
    page = device
    new_collage(page, layout="grid2x2")
    open_tab(page, "background")
    page.click("button[aria-label='Mint background']")
    saved(page)
    assert document(page)["style"]["background"].lower().startswith("#dcefe6")
    expect(page.locator("button[aria-label='Mint background']")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#background-value")).to_have_text("#dcefe6")
    set_range(page, "#spacing-input", 30)
    saved(page)
    expect(page.locator("#spacing-value")).to_have_text("30 pt")
    style = document(page)["style"]
    assert style["spacing"] == 30 and style["background"].lower().startswith("#dcefe6"), \
        "a slider changes its own field and keeps the colour"
    page.click("button[aria-label='See-through background']")
    saved(page)
    expect(page.locator("#background-value")).to_have_text("See-through")
    assert "transparent" in page.locator("#canvas").get_attribute("class")
    set_range(page, "#radius-input", 24)
    saved(page)
    assert document(page)["style"]["background"].lower().endswith("00"), "see-through stays see-through"


def test_two_tabs_merge_what_does_not_clash_and_say_what_was_kept(page):
    new_collage(page, layout="sideBySide")
    add_photos(page, ["coffee.png", "chelsea.png"])
    cid = collage_id(page)
    other = page.context.new_page()
    other.goto(page.url)
    saved(other)
    first, second = [item["id"] for item in document(page)["items"]]
    # This tab turns the first photo; the other, still on the old version, the second.
    page.locator(".item").first.focus()
    page.keyboard.press("]")
    saved(page)
    other.locator(".item").nth(1).focus()
    other.keyboard.press("]")
    saved(other)
    expect(other.locator(".toast", has_text="Merged")).to_be_visible()
    items = {item["id"]: item for item in document(page)["items"]}
    assert items[first]["rotation"] == 5 and items[second]["rotation"] == 5, "both turns are kept"
    # Both change the spacing: a real clash; the other tab shows the newer version and says so.
    page.click("#tab-background")
    other.click("#tab-background")
    set_range(page, "#spacing-input", 40)
    saved(page)
    set_range(other, "#spacing-input", 10)
    clash = other.locator(".toast.error", has_text="Both windows changed the spacing")
    expect(clash).to_be_visible(timeout=20000)
    expect(clash).to_contain_text("Kept: the other window")
    assert api(page, f"/api/collages/{cid}")["collage"]["style"]["spacing"] == 40
    expect(other.locator("#spacing-value")).to_have_text("40 pt")
    other.close()


def test_the_tray_marks_the_photos_already_in_the_collage(page):
    """Among look-alike thumbnails, which were still to place could not be told."""
    new_collage(page, layout="grid2x2")
    add_photos(page, ["coffee.png", "chelsea.png"])
    page.set_input_files("#file-input", [str(SAMPLES / "rocket.jpg")])
    expect(page.locator(".item")).to_have_count(3, timeout=30000)
    saved(page)
    photos = {photo["name"]: photo["id"] for photo in api(page, "/api/photos")}
    tray = page.locator("#photo-tray")
    for name in ["coffee.png", "chelsea.png", "rocket.jpg"]:
        expect(tray.locator(f"button[data-photo='{photos[name]}']")).to_have_attribute("data-placed", "")
        expect(tray.locator(f"button[data-photo='{photos[name]}']")).to_have_attribute(
            "aria-label", f"Add {name} (already in the collage)")
    # Deleted from the collage, the photo is unmarked; Undo marks it again.
    rocket = [item["id"] for item in document(page)["items"] if item["content"]["ref"] == photos["rocket.jpg"]][0]
    page.locator(f".item[data-id='{rocket}']").click()
    page.keyboard.press("Delete")
    saved(page)
    expect(tray.locator(f"button[data-photo='{photos['rocket.jpg']}']")).not_to_have_attribute("data-placed", "")
    expect(tray.locator(f"button[data-photo='{photos['rocket.jpg']}']")).to_have_attribute("aria-label", "Add rocket.jpg")
    page.click("#undo")
    saved(page)
    expect(tray.locator(f"button[data-photo='{photos['rocket.jpg']}']")).to_have_attribute("data-placed", "")
    if SCREENSHOTS:
        tray.screenshot(path=str(ROOT / "docs/images/editor-tray-placed.png"))


def test_on_a_touch_tablet_the_handles_and_tools_take_a_finger(browser, server):
    """The resize and turn handles were 14 px dots, and the item tools 32 px wide icons: a
    finger a little off the dot moved the photo under it instead."""
    with open_page(browser, server, viewport=TABLET, has_touch=True, is_mobile=True, device_scale_factor=2) as page:
        new_collage(page, layout="sideBySide")
        add_photos(page, ["coffee.png", "chelsea.png"])
        page.locator(".item").first.tap()
        expect(page.locator("#item-tools")).to_be_visible()
        for handle in [".handle.resize", ".handle.rotate"]:
            box = page.locator(f".selection {handle}").bounding_box()
            cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            for dx, dy in [(15, 0), (-15, 0), (0, 15), (0, -15)]:
                hit = page.evaluate("([x, y, h]) => !!document.elementFromPoint(x, y)?.closest(h)", [cx + dx, cy + dy, handle])
                assert hit, f"{handle} misses a touch {dx}, {dy} px from its centre"
        widths = page.locator("#item-tools button:visible").evaluate_all("buttons => buttons.map((b) => b.offsetWidth)")
        assert widths and min(widths) >= 44, widths


def test_a_window_looked_at_again_shows_what_another_changed(page):
    """A phone picked up again showed its old version of the collage, saying all was saved,
    until its own next change: it now takes the newer one when it is looked at again."""
    new_collage(page, layout="sideBySide")
    add_photos(page, ["coffee.png", "chelsea.png"])
    other = page.context.new_page()
    other.goto(page.url)
    saved(other)
    page.click("#tab-background")
    set_range(page, "#spacing-input", 40)
    saved(page)
    other.click("#tab-background")
    expect(other.locator("#spacing-value")).not_to_have_text("40 pt")
    other.evaluate("window.dispatchEvent(new Event('focus'))")
    expect(other.locator("#spacing-value")).to_have_text("40 pt")
    expect(other.locator("#undo")).to_be_enabled()
    other.close()


def touch(page, kind, points):
    """Sends one multi-touch event through the DevTools protocol (Playwright's own touch screen
    taps with one finger only)."""
    session = page.context.new_cdp_session(page) if not hasattr(page, "_cdp") else page._cdp
    page._cdp = session
    session.send("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [{"x": x, "y": y, "id": index} for index, (x, y) in enumerate(points)]})


@pytest.fixture()
def phone(browser, server):
    with open_page(browser, server, viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=2) as page:
        yield page


def test_on_a_phone_a_selected_items_tools_keep_off_it_and_off_the_messages(phone):
    # Messages hang across the top of a phone's stage and push the tools down; for a photo lower
    # down that put them over the photo itself (a sticker just lifted lay under its tools, pushed
    # down by "Sticker added"). They go below the photo instead.
    page = phone
    new_collage(page, layout="grid2x2")
    add_photos(page, ["coffee.png", "chelsea.png", "rocket.jpg"])
    expect(page.locator(".item")).to_have_count(3)
    box = page.locator(".item").nth(2).bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.locator("#item-tools")).to_be_visible()
    page.evaluate("import('/static/ui.js').then(({ toast }) => ['One', 'Two'].forEach((n) => toast(`${n} message`)))")
    expect(page.locator(".toast", has_text="Two message")).to_be_visible()
    page.wait_for_timeout(300)
    bar = page.locator("#item-tools").bounding_box()
    photo = page.locator(".item").nth(2).bounding_box()
    assert bar["y"] >= photo["y"] + photo["height"] or bar["y"] + bar["height"] <= photo["y"], (
        f"the tools {bar} cover the selected photo {photo}")
    for index in range(page.locator(".toast").count()):
        card = page.locator(".toast").nth(index).bounding_box()
        assert bar["y"] >= card["y"] + card["height"] or bar["y"] + bar["height"] <= card["y"], (bar, card)


def test_on_a_phone_lift_mode_is_for_a_finger(phone):
    # A finger has no Enter or Escape: the hint said "Click the subject... Enter lifts every
    # subject, Esc cancels", with no way to do either. It says Tap, and offers both as buttons.
    page = phone
    if not api(page, "/api/session")["stickers"]:
        pytest.skip("the subject model is not installed (scripts/fetch-model)")
    new_collage(page, layout="sideBySide")
    add_photos(page, ["coffee.png"])
    photo = page.locator(".item.photo").first
    box = photo.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.locator("#lift").tap()
    hint = page.locator("#mode-hint")
    expect(hint).to_contain_text("Tap the subject")
    expect(hint).not_to_contain_text("Enter")
    expect(page.locator("#status")).to_have_text("Tap the subject to lift it")
    if SCREENSHOTS:
        for close in page.locator(".toast-close").all():
            close.tap()
        page.wait_for_timeout(400)  # the dimming fades in
        page.screenshot(path=str(ROOT / "docs/images/editor-phone-lift.jpg"), type="jpeg", quality=80)
    page.locator("#lift-cancel").tap()
    expect(hint).to_be_hidden()
    assert not photo.evaluate("e => e.classList.contains('lift-target')")
    expect(page.locator(".item.sticker")).to_have_count(0)
    page.locator("#lift").tap()
    for button in ("#lift-every", "#lift-cancel"):
        size = page.locator(button).bounding_box()
        assert size["height"] >= 44 and size["width"] >= 44, f"{button} is too small for a finger: {size}"
    page.locator("#lift-every").tap()
    expect(page.locator(".item.sticker")).to_have_count(1, timeout=30000)


def test_on_a_phone_the_canvas_is_the_hero_and_touch_moves_pinches_and_turns(phone):
    page = phone
    new_collage(page, layout="grid2x2")
    add_photos(page, ["coffee.png", "chelsea.png"])
    expect(page.locator("#panel-photos")).to_be_hidden()  # the sheet starts closed
    canvas = page.locator("#canvas").bounding_box()
    # The whole width but the margin the handles need (they reach 30 px past a photo's edge).
    assert canvas["width"] >= PHONE["width"] - 2 * 40, canvas
    tabs = page.locator(".tabs").bounding_box()
    assert tabs["y"] + tabs["height"] >= PHONE["height"] - 2, "the tabs are a bar at the bottom"
    assert canvas["y"] + canvas["height"] <= tabs["y"], "the sheet does not cover the canvas"
    toolbar = page.locator(".editor-top").bounding_box()
    assert toolbar["height"] <= 56, toolbar
    export = page.locator("#export-button").bounding_box()
    assert export["x"] + export["width"] <= PHONE["width"], "Export is on the screen, not cut off"
    if SCREENSHOTS:
        page.evaluate("document.querySelectorAll('.toast').forEach((toast) => toast.remove())")
        box = page.locator(".item").nth(1).bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_timeout(300)
        page.screenshot(path=str(ROOT / "docs/images/editor-phone.jpg"), type="jpeg", quality=80)
    # A selected photo's tools each show their words (no hover names an icon), all on screen.
    box = page.locator(".item").first.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.locator("#item-tools")).to_be_visible()
    tools = page.evaluate("""[...document.querySelectorAll('#item-tools button')].filter((b) => !b.hidden).map((b) => {
      const box = b.getBoundingClientRect();
      return { id: b.id, words: b.textContent.trim(), size: parseFloat(getComputedStyle(b).fontSize),
               left: box.left, right: box.right, fits: b.scrollWidth <= b.clientWidth + 1 };
    })""")
    assert len(tools) >= 8, tools
    # They lie in one row along the foot of the stage, under the canvas, not over the photos;
    # the row scrolls sideways, and each tool scrolled to is whole on screen.
    bar = page.locator("#item-tools").bounding_box()
    canvas = page.locator("#canvas").bounding_box()
    assert bar["y"] >= canvas["y"] + canvas["height"], (bar, canvas)
    assert bar["x"] >= 0 and bar["x"] + bar["width"] <= PHONE["width"], bar
    for tool in tools:
        assert tool["words"] and tool["size"] >= 10, f"{tool['id']} shows its words: {tool}"
        page.locator(f"#{tool['id']}").scroll_into_view_if_needed()
        shown = page.locator(f"#{tool['id']}").bounding_box()
        assert shown["x"] >= 0 and shown["x"] + shown["width"] <= PHONE["width"] and tool["fits"], f"{tool['id']} is whole on screen: {shown}"
    # Messages hang across the top of a phone's stage: the tools move out of their way.
    page.evaluate("import('/static/ui.js').then(({ toast }) => ['One', 'Two', 'Three', 'Four'].forEach((n) => toast(`${n} message`)))")
    expect(page.locator(".toast", has_text="Four message")).to_be_visible()
    page.wait_for_timeout(300)
    bar = page.locator("#item-tools").bounding_box()
    for index in range(page.locator(".toast").count()):
        card = page.locator(".toast").nth(index).bounding_box()
        apart = (bar["y"] >= card["y"] + card["height"] or bar["y"] + bar["height"] <= card["y"]
                 or bar["x"] >= card["x"] + card["width"] or bar["x"] + bar["width"] <= card["x"])
        assert apart, f"the tools {bar} lie under a message {card}"
    page.evaluate("document.querySelectorAll('.toast').forEach((toast) => toast.remove())")
    page.locator("#stage").click(position={"x": 5, "y": 5})
    # A tab opens a sheet; the canvas makes room and stays whole.
    page.click("#tab-layouts")
    expect(page.locator("#panel-layouts")).to_be_visible()
    # The canvas is fitted again once the sheet has risen: waited for, not assumed done.
    for _ in range(40):
        sheet = page.locator("#panel").bounding_box()
        shrunk = page.locator("#canvas").bounding_box()
        if shrunk["y"] + shrunk["height"] <= sheet["y"] + 1:
            break
        page.wait_for_timeout(100)
    assert shrunk["y"] + shrunk["height"] <= sheet["y"] + 1 and shrunk["width"] > 150, (shrunk, sheet)
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), "nothing sticks out sideways"
    assert page.locator("#shape-options").bounding_box()["height"] >= 50, "the shapes row is not squeezed"
    assert page.evaluate("[...document.querySelectorAll('#layout-grid .layout-option')].every("
                         "(b) => b.getBoundingClientRect().right <= innerWidth)"), "every layout preview is on screen"
    if SCREENSHOTS:
        page.screenshot(path=str(ROOT / "docs/images/editor-phone-layouts.jpg"), type="jpeg", quality=80)
    page.click("#tab-layouts")
    expect(page.locator("#panel-layouts")).to_be_hidden()
    page.wait_for_timeout(300)  # the canvas is fitted again to the room the sheet gave back

    cid = collage_id(page)
    item = document(page)["items"][0]
    version = api(page, f"/api/collages/{cid}")["version"]
    box = present_box(page, page.locator(".item").first)
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    # One finger drags the photo.
    page.touchscreen.tap(cx, cy)
    touch(page, "touchStart", [(cx, cy)])
    for step in range(1, 6):
        touch(page, "touchMove", [(cx + 6 * step, cy + 4 * step)])
    touch(page, "touchEnd", [])
    version = saved_change(page, version)
    moved = document(page)["items"][0]
    scale = box["width"] / item["frame"]["width"]
    assert abs(moved["frame"]["x"] - (item["frame"]["x"] + 30 / scale)) < 3, moved
    # Two fingers: spreading them grows the photo, turning them turns it.
    box = page.locator(".item").first.bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    touch(page, "touchStart", [(cx - 30, cy)])
    touch(page, "touchStart", [(cx - 30, cy), (cx + 30, cy)])
    end = 0
    for step in range(1, 9):
        radius = 30 + 5 * step
        angle = math.radians(3 * step)
        end = (radius, angle)
        touch(page, "touchMove", [(cx - radius * math.cos(angle), cy - radius * math.sin(angle)),
                                  (cx + radius * math.cos(angle), cy + radius * math.sin(angle))])
    touch(page, "touchEnd", [])
    version = saved_change(page, version)
    pinched = document(page)["items"][0]
    assert pinched["frame"]["width"] > moved["frame"]["width"] * 1.8, (moved["frame"], pinched["frame"])
    assert abs(pinched["rotation"] - math.degrees(end[1])) < 2, pinched["rotation"]
    # In crop mode, one finger pans the picture inside its frame instead of moving the frame.
    page.click("#crop")
    expect(page.locator("#mode-hint")).to_contain_text("Drag to move the photo in its frame")
    box = page.locator(".item").first.bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    touch(page, "touchStart", [(cx, cy)])
    for step in range(1, 6):
        touch(page, "touchMove", [(cx + 8 * step, cy)])
    touch(page, "touchEnd", [])
    saved_change(page, version)
    cropped = document(page)["items"][0]
    assert cropped["frame"] == pinched["frame"] and "crop" in cropped, cropped
    assert api(page, f"/api/collages/{cid}")["collage"]["items"][1]["frame"] == document(page)["items"][1]["frame"]


@pytest.mark.parametrize("viewport", [LAPTOP, {"width": 1366, "height": 768}, {"width": 1180, "height": 820}, TABLET],
                         ids=["laptop", "wide laptop", "tablet on its side", "upright tablet"])
def test_the_panel_and_canvas_share_the_screen(browser, server, viewport):
    with open_page(browser, server, viewport=viewport) as page:
        new_collage(page, layout="grid2x2")
        add_photos(page, ["coffee.png"])
        panel = page.locator("#panel").bounding_box()
        canvas = page.locator("#canvas").bounding_box()
        if viewport == TABLET:
            # Upright, the panel lies under the canvas: beside it, a square collage was 436 px
            # wide between two bands of empty grey.
            assert panel["y"] >= canvas["y"] + canvas["height"], "the panel is under the canvas"
            assert panel["height"] >= 0.25 * viewport["height"], panel
            assert canvas["width"] >= 0.65 * viewport["width"], canvas
        else:
            assert panel["x"] + panel["width"] <= canvas["x"], "the panel is beside the canvas"
            assert canvas["width"] >= (viewport["width"] - panel["width"]) * 0.6 or canvas["height"] >= viewport["height"] * 0.6
        assert canvas["x"] + canvas["width"] <= viewport["width"]
        toolbar = page.locator(".editor-top").bounding_box()
        assert toolbar["x"] + toolbar["width"] <= viewport["width"], "the top bar fits the window"


def test_new_from_photos_suggests_layouts_drawn_with_them(page):
    page.set_input_files("#start-photos", [str(SAMPLES / name) for name in ["coffee.png", "chelsea.png", "rocket.jpg"]])
    dialog = page.locator("#suggest-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#suggest-title")).to_have_text("Choose a layout", timeout=30000)
    # The title reads so before the upload too: wait for the text that comes with the layouts.
    expect(page.locator("#suggest-text")).to_contain_text("For your 3 photos", timeout=60000)
    first = page.locator("#suggest-grid .layout-option").first
    expect(first).to_contain_text("Fits all")
    # The others say how they take 3 photos: frames left empty, or fewer frames than photos.
    expect(page.locator("#suggest-grid .layout-option[data-template=grid2x2] .fits")).to_have_text("1 empty")
    expect(page.locator("#suggest-grid .layout-option[data-template=sideBySide] .fits")).to_have_text("Holds 2")
    # A screen reader hears it too.
    expect(page.locator("#suggest-grid .layout-option[data-template=grid2x2]")).to_have_attribute(
        "aria-label", re.compile(r"^Grid, 4 frames, 1 empty"))
    # The keyboard (and a tablet's highlight) starts on the layout made for these photos, free
    # and fitting them all: on the first tile it started on a premium layout that fitted them.
    expect(page.locator("#suggest-smart")).to_be_focused()
    # Each suggestion is drawn with the photos just chosen.
    assert first.locator("image").count() == 3
    if SCREENSHOTS:
        page.wait_for_timeout(500)
        page.screenshot(path=str(ROOT / "docs/images/new-from-photos.jpg"), type="jpeg", quality=80)
    template = first.get_attribute("data-template")
    first.click()
    # Making the collage crops each photo around its subject (the model runs if the background
    # analysis has not reached it yet): seconds on a busy two-core machine.
    expect(page.locator("#editor-view")).to_be_visible(timeout=30000)
    saved(page)
    doc = document(page)
    assert doc["template"] == template and len(doc["items"]) == 3
    assert all("slot" in item for item in doc["items"]), "every photo has a frame of the layout"


def test_new_from_photos_says_in_the_dialog_which_files_it_refused(page, tmp_path):
    """A file that is no photo among the picks: why it was refused is said in the layout dialog.
    It was a message in the corner, under the dialog's backdrop, cut to "able image (its format…"."""
    broken = tmp_path / "holiday.jpg"
    broken.write_bytes(b"this is not a picture at all")
    page.set_input_files("#start-photos", [str(SAMPLES / "coffee.png"), str(SAMPLES / "chelsea.png"), str(broken)])
    expect(page.locator("#suggest-dialog")).to_be_visible()
    failures = page.locator("#suggest-failures")
    expect(failures).to_be_visible(timeout=60000)
    expect(failures).to_contain_text("holiday.jpg")
    # Inside the dialog, on top: what is at its middle is the list itself.
    box = failures.bounding_box()
    dialog = page.locator("#suggest-dialog").bounding_box()
    assert dialog["y"] <= box["y"] and box["y"] + box["height"] <= dialog["y"] + dialog["height"], (box, dialog)
    on_top = page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.closest('#suggest-failures') !== null",
                           [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2])
    assert on_top, "the refusal is drawn over, not under, the dialog"
    page.keyboard.press("Escape")


def test_new_from_photos_offers_layouts_while_the_photos_upload(page):
    # The upload is held back until the test lets it go: the layouts must not wait for it.
    held = []
    page.route("**/api/photos", lambda route: held.append(route) if route.request.method == "POST" else route.continue_())
    page.set_input_files("#start-photos", [str(SAMPLES / name) for name in ["coffee.png", "chelsea.png", "rocket.jpg"]])
    expect(page.locator("#suggest-text")).to_contain_text("For your 3 photos", timeout=30000)
    first = page.locator("#suggest-grid .layout-option").first
    expect(first).to_contain_text("Fits all")
    hrefs = [first.locator("image").nth(index).get_attribute("href") for index in range(3)]
    assert all(href.startswith("blob:") for href in hrefs), f"drawn with the page's own copies: {hrefs}"
    expect(page.locator("#suggest-progress")).to_be_visible()
    assert len(held) == 1, "the upload is still on its way"
    # Chosen before the upload is done: the collage is made once the photos are in the library.
    page.locator("#suggest-smart").click()
    page.wait_for_timeout(300)
    expect(page.locator("#suggest-dialog")).to_be_visible()
    held[0].continue_()
    expect(page.locator("#editor-view")).to_be_visible(timeout=30000)
    saved(page)
    assert len(document(page)["items"]) == 3


def test_the_pages_own_copies_are_small_and_upright(page, tmp_path):
    """A phone's JPEG stored sideways with an EXIF turn, a portrait one and a PNG: the layouts'
    first copies (decoded small in the page) stand as the photos do, at most 320 px long."""
    from PIL import Image
    # Stored 1,600 x 1,200: a green band along the top, red on the left half, blue on the right.
    stored = Image.new("RGB", (1600, 1200), (0, 0, 255))
    stored.paste((255, 0, 0), (0, 0, 800, 1200))
    stored.paste((0, 255, 0), (0, 0, 1600, 150))
    exif = Image.Exif()
    exif[0x0112] = 6  # shown turned a quarter clockwise
    turned, portrait, png = tmp_path / "turned.jpg", tmp_path / "portrait.jpg", tmp_path / "wide.png"
    stored.save(turned, quality=92, exif=exif.tobytes())
    stored.transpose(Image.Transpose.ROTATE_90).save(portrait, quality=92)
    stored.save(png)
    held = []
    page.route("**/api/photos", lambda route: held.append(route) if route.request.method == "POST" else route.continue_())
    page.set_input_files("#start-photos", [str(turned), str(portrait), str(png)])
    expect(page.locator("#suggest-text")).to_contain_text("For your 3 photos", timeout=30000)
    hrefs = [page.locator("#suggest-grid .layout-option").first.locator("image").nth(index).get_attribute("href")
             for index in range(3)]
    # Read back through an image, as the page's own rules let its pictures load blob URLs.
    copies = page.evaluate("""async (hrefs) => Promise.all(hrefs.map(async (href) => {
        const image = new Image();
        image.src = href;
        await image.decode();
        const bitmap = await createImageBitmap(image);
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        const context = canvas.getContext('2d');
        context.drawImage(bitmap, 0, 0);
        const at = (x, y) => Array.from(context.getImageData(Math.round(x * (bitmap.width - 1)),
            Math.round(y * (bitmap.height - 1)), 1, 1).data.slice(0, 3));
        return { size: [bitmap.width, bitmap.height], corners: [at(0.05, 0.05), at(0.95, 0.05), at(0.05, 0.95), at(0.95, 0.95)] };
    }))""", hrefs)
    red, green, blue = (255, 0, 0), (0, 255, 0), (0, 0, 255)

    def near(pixel, colour):
        return all(abs(a - b) < 40 for a, b in zip(pixel, colour))

    # Turned a quarter clockwise: the left half (red) is on top, the green band on the right.
    assert copies[0]["size"] == [240, 320], copies[0]
    assert [near(p, c) for p, c in zip(copies[0]["corners"], [red, green, blue, green])] == [True] * 4, copies[0]
    # Stored upright as a portrait (turned a quarter anticlockwise when it was made).
    assert copies[1]["size"] == [240, 320], copies[1]
    assert [near(p, c) for p, c in zip(copies[1]["corners"], [green, blue, green, red])] == [True] * 4, copies[1]
    assert copies[2]["size"] == [320, 240], copies[2]
    assert [near(p, c) for p, c in zip(copies[2]["corners"], [green, green, red, blue])] == [True] * 4, copies[2]
    assert len(held) == 1, "all of it before the upload was let through"
    held[0].continue_()


def axe_violations(page):
    from axe_playwright_python.sync_playwright import Axe
    results = Axe().run(page)
    return [violation for violation in results.response["violations"] if violation["impact"] in ("serious", "critical")]


def describe(violations):
    return json.dumps([{"id": v["id"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"][:4]]}
                       for v in violations], indent=1)


def test_no_serious_accessibility_violations(device):
    page = device
    new_collage(page, layout="grid2x2")
    add_photos(page, ["coffee.png", "chelsea.png"])
    page.locator(".item").first.click()
    wait_for_images(page)
    for name in ["photos", "layouts", "background", "stickers"]:
        open_tab(page, name)
        page.wait_for_timeout(200)
        violations = axe_violations(page)
        assert not violations, f"{name} tab: {describe(violations)}"
    page.click(".brand")
    expect(page.locator(".collage-card")).to_have_count(1)
    violations = axe_violations(page)
    assert not violations, f"library: {describe(violations)}"


MERGE_CASES = """async () => {
  const { mergeable } = await import('/static/merge.js');
  const photo = (id, slot, extra = {}) => ({ id, content: { type: 'photo', ref: id + '.jpg' }, slot,
    frame: { x: slot * 100, y: 0, width: 100, height: 100 }, rotation: 0, ...extra });
  const base = { title: 'T', template: 'grid2x2', canvas: { width: 200, height: 200 },
    style: { background: '#ffffff', spacing: 8, padding: 8, cornerRadius: 0 },
    items: [photo('a', 0), photo('b', 1)] };
  const change = (f) => { const copy = structuredClone(base); f(copy); return copy; };
  const run = (edits, current) => mergeable(edits, base, current);
  return {
    otherItem: run([{ op: 'rotateItem', id: 'a', degrees: 5 }], change((c) => { c.items[1].rotation = 9; })),
    sameItem: run([{ op: 'rotateItem', id: 'a', degrees: 5 }], change((c) => { c.items[0].rotation = 9; })),
    otherField: run([{ op: 'setStyle', style: { ...base.style, spacing: 30 } }], change((c) => { c.style.padding = 40; })),
    sameField: run([{ op: 'setStyle', style: { ...base.style, spacing: 30 } }], change((c) => { c.style.spacing = 2; })),
    slotTaken: run([{ op: 'placeInSlot', id: 'b', slot: 2 }], change((c) => { c.items.push(photo('n', 2)); })),
    cropAfterReflow: run([{ op: 'setCrop', id: 'a', crop: { focus: { x: 0.2, y: 0.5 }, zoom: 2 } }],
      change((c) => { c.style.spacing = 20; c.items[0].frame.width = 90; })),
    moveAfterReflow: run([{ op: 'moveItem', id: 'a', origin: { x: 3, y: 4 } }], change((c) => { c.items[0].frame.width = 90; })),
    reorderAfterAdd: run([{ op: 'reorder', id: 'a', move: 'front' }], change((c) => { c.items.push(photo('n', 3)); })),
    deleted: run([{ op: 'rotateItem', id: 'a', degrees: 5 }], change((c) => { c.items.shift(); })),
    frameAfterAspect: run([{ op: 'addItem', id: 's', content: { type: 'sticker', ref: 's.png' }, frame: { x: 1, y: 1, width: 50, height: 50 } }],
      change((c) => { c.canvas.height = 250; })),
  };
}"""


def test_what_merges_and_what_clashes(page):
    """The page's merge rules, case by case, run in the page as the editor runs them."""
    cases = page.evaluate(MERGE_CASES)
    assert cases["otherItem"]["ok"] and not cases["sameItem"]["ok"]
    assert "photo 1" in cases["sameItem"]["reason"]
    assert cases["otherField"]["ok"]
    assert cases["otherField"]["edits"][0]["style"] == {"background": "#ffffff", "spacing": 30, "padding": 40, "cornerRadius": 0}, \
        "a style edit keeps the other window's padding and sends only its own spacing"
    assert not cases["sameField"]["ok"] and "the spacing" in cases["sameField"]["reason"]
    assert not cases["slotTaken"]["ok"] and "frame 3" in cases["slotTaken"]["reason"]
    assert cases["cropAfterReflow"]["ok"], "a crop does not depend on the frame the layout gave the photo"
    assert not cases["moveAfterReflow"]["ok"]
    assert cases["reorderAfterAdd"]["ok"], "an item added elsewhere is no clash for the stacking order"
    assert not cases["deleted"]["ok"]
    assert not cases["frameAfterAspect"]["ok"] and "layout" in cases["frameAfterAspect"]["reason"]


def test_on_a_phone_on_its_side_lift_modes_hint_keeps_off_the_photo(browser, server):
    """On a phone held sideways the collage is small and has no room above or below a photo:
    lift mode's hint covered the photo whose subject was to be tapped. It goes beside it."""
    with open_page(browser, server, viewport={"width": 844, "height": 390}, has_touch=True) as page:
        new_collage(page, layout="grid2x2")
        add_photos(page, ["coffee.png", "chelsea.png", "horse.png"])
        page.locator(".item").nth(2).tap()
        expect(page.locator("#lift")).to_be_visible()
        page.locator("#lift").tap()
        expect(page.locator("#mode-hint")).to_be_visible()
        hint, photo = page.locator("#mode-hint").bounding_box(), page.locator(".selection").bounding_box()
        apart = (hint["x"] >= photo["x"] + photo["width"] or hint["x"] + hint["width"] <= photo["x"]
                 or hint["y"] >= photo["y"] + photo["height"] or hint["y"] + hint["height"] <= photo["y"])
        assert apart, (hint, photo)


def present_box(page, locator):
    """The bounding box of `locator` once it has one: the canvas is drawn again when its room
    changes (a sheet closing, a reload), and an item's element caught between two drawings has
    no box."""
    for _ in range(50):
        box = locator.bounding_box()
        if box:
            return box
        page.wait_for_timeout(100)
    raise AssertionError(f"{locator} has no box")


def settled_box(page, selector):
    """The bounding box of `selector` once its drawing has come (see present_box)."""
    expect(page.locator(f"{selector} img")).to_have_attribute("data-look", re.compile(".+"), timeout=30000)
    return present_box(page, page.locator(selector))


def test_on_a_phone_a_pinch_begun_on_a_stickers_clear_corner_is_the_stickers(phone):
    # The first finger on a clear corner of the selected sticker went to the photo seen there,
    # and the pinch grew and turned that photo across its neighbours instead of the sticker.
    page = phone
    from test_editor import collage_with_a_lifted_sticker
    cid, sticker = collage_with_a_lifted_sticker(page, "Pinch")
    photo = api(page, f"/api/collages/{cid}")["collage"]["items"][0]
    f = photo["frame"]
    side = min(f["width"], f["height"]) * 0.5
    edit(page, cid, [{"op": "addItem", "id": "st", "content": {"type": "sticker", "ref": sticker["id"]},
                      "frame": {"x": f["x"] + f["width"] / 2 - side / 2, "y": f["y"] + f["height"] / 2 - side / 2,
                                "width": side, "height": side}}])
    page.reload()
    saved(page)
    page.evaluate("document.querySelectorAll('.toast').forEach((toast) => toast.remove())")
    box = settled_box(page, ".item[data-id='st']")
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    version = api(page, f"/api/collages/{cid}")["version"]
    # The first finger just inside the frame's top-left corner, clear of the cup; the second on it.
    corner = (box["x"] + 3, box["y"] + 3)
    middle = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    touch(page, "touchStart", [corner])
    touch(page, "touchStart", [corner, middle])
    for step in range(1, 7):
        touch(page, "touchMove", [(corner[0] - 5 * step, corner[1] - 5 * step), (middle[0] + 5 * step, middle[1] + 5 * step)])
    touch(page, "touchEnd", [])
    saved_change(page, version)
    items = {item["id"]: item for item in api(page, f"/api/collages/{cid}")["collage"]["items"]}
    assert items[photo["id"]]["frame"] == f and items[photo["id"]].get("rotation", 0) == photo.get("rotation", 0), items[photo["id"]]
    assert items["st"]["frame"]["width"] > side * 1.2, items["st"]["frame"]


def test_on_a_phone_a_message_hangs_under_the_canvas_where_there_is_room(phone):
    # Under the top bars a message covered the top of the canvas for seconds after every lift,
    # refine and export, often over the sticker just made.
    page = phone
    new_collage(page, layout="grid2x2")
    add_photos(page, ["coffee.png", "chelsea.png"])
    page.evaluate("document.querySelectorAll('.toast').forEach((toast) => toast.remove())")
    box = page.locator(".item").first.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.locator("#item-tools")).to_be_visible()
    page.evaluate("import('/static/ui.js').then(({ toast }) => toast('Sticker added: drag it anywhere'))")
    card = page.locator(".toast", has_text="Sticker added")
    expect(card).to_be_visible()
    message = card.bounding_box()
    canvas = page.locator("#canvas").bounding_box()
    tools = page.locator("#item-tools").bounding_box()
    assert message["y"] >= canvas["y"] + canvas["height"], (message, canvas)
    assert message["y"] + message["height"] <= tools["y"], (message, tools)


def test_on_a_phone_the_sticker_effects_are_in_view_when_the_sheet_opens(phone):
    # Under the outline and shadow, in two rows, the effects lay below the fold of the sheet.
    page = phone
    from test_editor import collage_with_a_lifted_sticker
    from test_ordinary import add_sticker_item
    cid, sticker = collage_with_a_lifted_sticker(page, "Effects in view")
    add_sticker_item(page, cid, sticker)
    page.reload()
    saved(page)
    box = settled_box(page, ".item[data-id='st']")
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.click("#tab-stickers")
    expect(page.locator("#sticker-style")).to_be_visible()
    page.wait_for_timeout(400)  # the sheet rises
    tabs = page.locator(".tabs").bounding_box()
    for effect in ("", "comic", "halftone", "puffy", "shiny"):
        button = page.locator(f"#sticker-style .effects button[data-effect='{effect}']").bounding_box()
        assert button["y"] + button["height"] <= tabs["y"], f"{effect or 'none'} is below the fold: {button} {tabs}"
