"""Fixtures of the browser tests: Debian's chromium, driven by Playwright, and a fresh
`collage serve` with its own library for each test."""
import contextlib
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

COLLAGE = Path(__file__).resolve().parents[2] / ".build" / "debug" / "collage"


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture()
def server():
    """A fresh library and `collage serve` on a free port; yields its base URL."""
    library = tempfile.mkdtemp(prefix="collage-browser-")
    process = subprocess.Popen(
        [str(COLLAGE), "serve", "--port", "0", "--library", library],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    match = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
    assert match, f"serve printed {line!r}; stderr: {process.stderr.read() if process.poll() is not None else ''}"
    yield {"url": match.group(1), "library": library}
    process.send_signal(2)  # Ctrl-C: a clean stop
    assert process.wait(timeout=20) == 0
    shutil.rmtree(library, ignore_errors=True)


@contextlib.contextmanager
def open_page(browser, server, **context_options):
    """The editor's page in a new browser context; any script error on the page fails the test."""
    context = browser.new_context(**context_options)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server["url"])
    try:
        yield page
    finally:
        context.close()
    assert not errors, errors


@pytest.fixture()
def page(browser, server):
    with open_page(browser, server, viewport={"width": 1280, "height": 900}, accept_downloads=True) as page:
        yield page
