"""The sticker sheet in the editor: the library's stickers packed onto paper, drawn from the
same layout the downloads hold (its cut lines are the SVG's), and the PDF a print shop gets."""
import json
import re
import subprocess

import pytest
from playwright.sync_api import expect

from conftest import COLLAGE, ROOT


def stickers_in_library(server, names):
    """Imports sample photos into the server's library and lifts a sticker from each (CLI)."""
    imported = subprocess.run(
        [str(COLLAGE), "import", "--no-analyse", "--json", "--library", server["library"],
         *[str(ROOT / "samples" / name) for name in names]], check=True, capture_output=True, text=True)
    ids = [entry["id"] for entry in json.loads(imported.stdout)]
    for photo in ids:
        lifted = subprocess.run([str(COLLAGE), "sticker", photo, "--library", server["library"]],
                                capture_output=True, text=True)
        if lifted.returncode == 69:
            pytest.skip("the subject model is not installed (scripts/fetch-model)")
        assert lifted.returncode == 0, lifted.stderr
    return ids


def numbers(path_data):
    return [float(number) for number in re.findall(r"-?\d+(?:\.\d+)?", path_data)]


def test_the_sheet_shows_the_cut_lines_it_downloads(page, server):
    stickers_in_library(server, ["chelsea.png", "horse.png", "coffee.png"])
    page.click("#open-sheet")
    expect(page.locator("#sheet-dialog")).to_be_visible()
    expect(page.locator(".sheet-page")).to_have_count(1, timeout=60000)
    expect(page.locator(".sheet-page .cut-lines path")).to_have_count(3)
    expect(page.locator(".sheet-page image")).to_have_count(3)
    expect(page.locator("#sheet-summary")).to_contain_text("3 stickers on 1 page")
    page.screenshot(path=str(ROOT / ".build" / "browser-sheet.png"))

    # The cut lines drawn are the ones the cutter's SVG holds.
    shown = sorted(numbers(d) for d in page.locator(".sheet-page .cut-lines path").evaluate_all(
        "paths => paths.map((path) => path.getAttribute('d'))"))
    with page.expect_download() as svg_download:
        page.click("#sheet-svg")
    svg = open(svg_download.value.path(), encoding="utf-8").read()
    assert 'width="210mm" height="297mm"' in svg
    saved = sorted(numbers(d) for d in re.findall(r'<path d="([^"]+)"', svg))
    assert len(saved) == len(shown) == 3
    for drawn, written in zip(shown, saved):
        assert len(drawn) == len(written)
        assert max(abs(a - b) for a, b in zip(drawn, written)) < 0.01

    with page.expect_download() as pdf_download:
        page.click("#sheet-pdf")
    pdf = open(pdf_download.value.path(), "rb").read()
    assert pdf.startswith(b"%PDF") and b"/Separation /CutContour" in pdf

    # Fewer stickers, larger, on Letter with registration marks: the page is drawn again.
    page.locator(".sheet-choice").first.click()
    page.select_option("#sheet-form select[name=page]", "letter")
    page.check("#sheet-form input[name=marks]")
    expect(page.locator(".sheet-page .cut-lines path")).to_have_count(2, timeout=60000)
    expect(page.locator(".sheet-page > rect[fill='#000']")).to_have_count(5)
    assert page.locator(".sheet-page").get_attribute("viewBox") == "0 0 215.9 279.4"


def test_an_empty_library_says_how_to_get_stickers(page):
    page.click("#open-sheet")
    expect(page.locator("#sheet-summary")).to_contain_text("No stickers yet")
    expect(page.locator("#sheet-pdf")).to_be_disabled()
