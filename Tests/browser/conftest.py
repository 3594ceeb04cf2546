"""Fixtures of the browser tests: Debian's chromium, driven by Playwright, and a fresh
`collage serve` with its own library for each test."""
import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
COLLAGE = ROOT / ".build" / "debug" / "collage"
SIGNER = ROOT / ".build" / "debug" / "collage-licence"
TEST_SIGNING_KEY = ROOT / "Tests" / "Fixtures" / "licence" / "test-signing.key"


def pytest_configure(config):
    config.addinivalue_line("markers", "unlocked: the server's user has a Collage Premium licence (the test key)")


def signed_licence_key(licensee="Browser Test <browser@example.com>"):
    """A licence key signed with the tests' key, which the debug build trusts."""
    return subprocess.run(
        [str(SIGNER), "sign", "--key", str(TEST_SIGNING_KEY), "--licensee", licensee],
        check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture()
def server(request):
    """A fresh library and `collage serve` on a free port; yields its base URL. The server's user
    has a configuration folder of their own: no licence, unless the test is marked `unlocked`."""
    library = tempfile.mkdtemp(prefix="collage-browser-")
    config = tempfile.mkdtemp(prefix="collage-browser-config-")
    environment = {**os.environ, "XDG_CONFIG_HOME": config}
    if request.node.get_closest_marker("unlocked"):
        subprocess.run([str(COLLAGE), "licence", "add", signed_licence_key()], env=environment, check=True,
                       capture_output=True)
    # The server's stderr goes to a file, never an unread pipe: a pipe that fills would stall the
    # server, and a crash's last words (an abort's message) are what the failure must show.
    stderr_log = Path(config) / "serve-stderr.log"
    with open(stderr_log, "wb") as stderr_file:
        process = subprocess.Popen(
            [str(COLLAGE), "serve", "--port", "0", "--library", library],
            stdout=subprocess.PIPE, stderr=stderr_file, text=True, env=environment)

    def last_words():
        text = stderr_log.read_text(errors="replace")
        return text[-4000:] if text else "(nothing on stderr)"

    try:
        line = process.stdout.readline()
        # Whatever the server prints later is read, so its stdout cannot fill either.
        threading.Thread(target=lambda: process.stdout.read(), daemon=True).start()
        match = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
        if not match:
            process.poll()
            pytest.fail(f"serve printed {line!r}; exit {process.returncode}; stderr:\n{last_words()}")
        yield {"url": match.group(1), "library": library, "config": config}
        exited_early = process.poll()
        if exited_early is None:
            process.send_signal(2)  # Ctrl-C: a clean stop
            try:
                status = process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pytest.fail(f"serve did not stop within 20 s of Ctrl-C; stderr:\n{last_words()}")
        else:
            status = exited_early
        assert status == 0, (f"serve {'died during the test' if exited_early is not None else 'stopped'} "
                             f"with status {status}; stderr:\n{last_words()}")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        shutil.rmtree(library, ignore_errors=True)
        shutil.rmtree(config, ignore_errors=True)


@contextlib.contextmanager
def open_page(browser, server, **context_options):
    """The editor's page in a new browser context; any script error on the page fails the test."""
    context = browser.new_context(**context_options)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(server["url"])
    # The page's script starts after "load": wait until its controls are live, as a person would.
    page.wait_for_selector("html[data-ready]", state="attached")
    try:
        yield page
    finally:
        context.close()
    assert not errors, errors


@pytest.fixture()
def page(browser, server):
    with open_page(browser, server, viewport={"width": 1280, "height": 900}, accept_downloads=True) as page:
        yield page
