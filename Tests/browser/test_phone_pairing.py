"""A phone on the home network: `collage serve --lan` pairs it by a one-time code over HTTPS, and
nothing else on the network gets in.

The phone is a real browser in a network namespace the test makes (a veth pair: the computer's
end 10.213.N.1, the phone's 10.213.N.2), so the server sees a request from another address, as it
would from a phone on Wi-Fi. Traffic never leaves the pair. Making namespaces needs root and
iproute2, which CI has; elsewhere the tests skip and say so."""
import hashlib
import json
import os
import re
import select
import shutil
import ssl
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import expect

from conftest import COLLAGE, ROOT, open_page

SAMPLES = ROOT / "samples"
SHOTS = Path(os.environ.get("COLLAGE_TEST_SHOTS", tempfile.gettempdir())) / "collage-browser-shots"
# COLLAGE_SCREENSHOTS=1 also writes docs/PHONE.md's pictures.
SCREENSHOTS = os.environ.get("COLLAGE_SCREENSHOTS") == "1"
PHONE_AGENT = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
               "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1")
# The phone's share sheet: headless Chromium has none, so the page's call is recorded instead.
SHARE_SHEET = """
window.sharedFiles = [];
navigator.canShare = (data) => !!data && Array.isArray(data.files);
navigator.share = async (data) => { window.sharedFiles.push(...data.files); };
"""


def shoot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.fixture(scope="module")
def home_network():
    """A network namespace for the phone, joined to this computer by a veth pair."""
    if os.geteuid() != 0 or not shutil.which("ip"):
        pytest.skip("pairing over the home network is tested in a network namespace: that needs root and iproute2")
    tag = os.getpid() % 10000
    namespace = f"collage-phone-{tag}"
    computer_end, phone_end = f"clg{tag}c", f"clg{tag}p"
    third = os.getpid() % 250 + 1
    computer, phone = f"10.213.{third}.1", f"10.213.{third}.2"

    def run(*arguments):
        subprocess.run(arguments, check=True, capture_output=True, text=True)

    try:
        run("ip", "netns", "add", namespace)
    except subprocess.CalledProcessError as error:
        pytest.skip(f"cannot make a network namespace here: {error.stderr.strip()}")
    folder = Path(tempfile.mkdtemp(prefix="collage-phone-"))
    try:
        run("ip", "link", "add", computer_end, "type", "veth", "peer", "name", phone_end)
        run("ip", "link", "set", phone_end, "netns", namespace)
        # No IPv6 on the pair: its link-local addresses would arrive a moment after the links
        # come up, and a browser that sees an address change fails the page it is loading
        # (net::ERR_NETWORK_CHANGED).
        subprocess.run(["sysctl", "-qw", f"net.ipv6.conf.{computer_end}.disable_ipv6=1"], capture_output=True)
        subprocess.run(["ip", "netns", "exec", namespace, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"],
                       capture_output=True)
        run("ip", "addr", "add", f"{computer}/24", "dev", computer_end)
        run("ip", "link", "set", computer_end, "up")
        run("ip", "netns", "exec", namespace, "ip", "addr", "add", f"{phone}/24", "dev", phone_end)
        run("ip", "netns", "exec", namespace, "ip", "link", "set", phone_end, "up")
        run("ip", "netns", "exec", namespace, "ip", "link", "set", "lo", "up")
        # And the network is used only once both ends say it is up (a link's carrier comes a
        # moment after it is set up), so no change reaches a browser in the middle of a test.
        for _ in range(100):
            states = [subprocess.run(command, capture_output=True, text=True).stdout for command in (
                ["ip", "-o", "link", "show", computer_end],
                ["ip", "netns", "exec", namespace, "ip", "-o", "link", "show", phone_end])]
            if all("state UP" in state for state in states):
                break
            time.sleep(0.05)
        # The phone's browser: Debian's chromium, started inside the phone's namespace.
        wrapper = folder / "chromium-on-the-phone"
        wrapper.write_text(f'#!/bin/sh\nexec ip netns exec {namespace} /usr/bin/chromium "$@"\n')
        wrapper.chmod(0o755)
        yield {"namespace": namespace, "computer": computer, "phone": phone, "chromium": str(wrapper)}
    finally:
        subprocess.run(["ip", "link", "del", computer_end], capture_output=True)
        subprocess.run(["ip", "netns", "del", namespace], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def phone_browser(browser, home_network):
    phone = browser.browser_type.launch(executable_path=home_network["chromium"], args=["--no-sandbox"])
    yield phone
    phone.close()


def read_until(process, pattern, seconds=30):
    """What the server prints, read as it comes, until `pattern` matches it."""
    printed = b""
    deadline = time.monotonic() + seconds
    while not re.search(pattern, printed.decode(errors="replace")):
        assert time.monotonic() < deadline and process.poll() is None, \
            f"serve printed {printed!r}; stderr: {process.stderr.read() if process.poll() is not None else ''}"
        ready, _, _ = select.select([process.stdout], [], [], 1)
        if ready:
            printed += os.read(process.stdout.fileno(), 65536)
    return printed.decode(errors="replace")


FINGERPRINT_LINE = r"^\s+((?:[0-9A-F]{2}:){7}[0-9A-F]{2})$"


def start_lan_server(library, home_network, config):
    """`collage serve --lan` on the computer's end of the pair; what its terminal shows."""
    process = subprocess.Popen(
        [str(COLLAGE), "serve", "--port", "0", "--library", library, "--no-analyse", "--lan", "--lan-port", "0",
         "--lan-address", home_network["computer"]],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "XDG_CONFIG_HOME": config})
    printed = read_until(process, r"(?ms)(?:" + FINGERPRINT_LINE + r".*){4}")
    local = re.search(r"(http://127\.0\.0\.1:\d+/)", printed).group(1)
    link = re.search(r"(https://\S+/pair#[0-9a-f]{32})", printed).group(1)
    fingerprint = ":".join(re.findall(FINGERPRINT_LINE, printed, re.M))
    return process, {"url": local, "link": link, "origin": link.split("/pair")[0], "fingerprint": fingerprint,
                     "printed": printed, "library": library}


def stop(process):
    process.send_signal(2)
    assert process.wait(timeout=20) == 0


@pytest.fixture()
def lan_server(home_network):
    library = tempfile.mkdtemp(prefix="collage-lan-")
    config = tempfile.mkdtemp(prefix="collage-lan-config-")
    process, shown = start_lan_server(library, home_network, config)
    yield {**shown, "config": config}
    stop(process)
    shutil.rmtree(library, ignore_errors=True)
    shutil.rmtree(config, ignore_errors=True)


def local_api(server, method, path, body=None):
    """A request from this computer itself (loopback), with the page's token."""
    token = json.load(urllib.request.urlopen(server["url"] + "api/session"))["token"]
    request = urllib.request.Request(
        server["url"] + path.lstrip("/"), method=method, headers={"X-Collage-Token": token, "Content-Type": "application/json"},
        data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def phone_context(phone_browser, **extra):
    # The certificate is self-signed: a person accepts it once, after comparing fingerprints.
    return phone_browser.new_context(
        ignore_https_errors=True, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
        device_scale_factor=2, user_agent=PHONE_AGENT, **extra)


def test_a_device_that_is_not_paired_reaches_nothing_but_the_pairing_page(phone_browser, lan_server):
    made = local_api(lan_server, "POST", "/api/collages", {"title": "Secret holiday"})
    collage_id = made["collage"]["id"]
    token = json.load(urllib.request.urlopen(lan_server["url"] + "api/session"))["token"]
    document = json.load(urllib.request.urlopen(lan_server["url"] + "api/openapi.json"))
    context = phone_context(phone_browser)
    page = context.new_page()
    try:
        answer = page.goto(lan_server["origin"] + "/")
        assert answer.status == 401
        expect(page.locator("h1")).to_have_text("Pair this device")
        assert "Secret holiday" not in page.content()
        # Every route of the API, even with the page's token (which would leak through a page,
        # not through a device), answers 401 or 403 and says nothing of the library.
        routes = [(method.upper(), path.replace("{id}", collage_id).replace("{item}", "x"))
                  for path, operations in document["paths"].items() for method in operations
                  if path != "/api/pair"]
        routes += [("GET", "/"), ("GET", "/index.html"), ("GET", "/static/app.js"), ("GET", "/api/nothing-here")]
        answers = page.evaluate("""async ([routes, token]) => {
          const answers = [];
          for (const [method, path] of routes) {
            const options = { method, headers: { 'X-Collage-Token': token, Accept: 'application/json' } };
            if (!['GET', 'HEAD'].includes(method)) { options.body = '{}'; options.headers['Content-Type'] = 'application/json'; }
            // A POST sent down a kept-alive connection just as the server closed it fails in the
            // network (browsers do not resend a POST): that is no answer, so it is asked once more.
            let response;
            try {
              response = await fetch(path, options);
            } catch (error) {
              await new Promise((resolve) => setTimeout(resolve, 200));
              try {
                response = await fetch(path, options);
              } catch (again) {
                answers.push([method, path, 0, String(again)]);
                continue;
              }
            }
            answers.push([method, path, response.status, await response.text()]);
          }
          return answers;
        }""", [routes, token])
        assert len(answers) > 30
        for method, path, status, body in answers:
            assert status in (401, 403), (method, path, status, body[:200])
            assert "Secret holiday" not in body and collage_id not in body.replace(path, ""), (method, path, body[:200])
        # The pairing page and its files are open; a made-up code is refused.
        assert page.evaluate("fetch('/pair').then((r) => r.status)") == 200
        refused = page.evaluate("""fetch('/api/pair', { method: 'POST', headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ code: '0123456789abcdef0123456789abcdef' }) }).then(async (r) => [r.status, await r.text()])""")
        assert refused[0] == 401 and "not valid" in refused[1]
        # A spent or made-up link says so in plain words and asks for a new one, without sending
        # the dead code again.
        page.goto(lan_server["origin"] + "/pair#" + "ab" * 16)
        page.click("#pair-button")
        expect(page.locator("#pair-status")).to_contain_text("already used or has run out")
        expect(page.locator("#pair-code")).to_be_visible()
        shoot(page, "phone-pairing-spent-code")
    finally:
        context.close()


def rotated_jpeg(folder):
    """A phone's JPEG: stored 300 × 200 on its side, with EXIF orientation 6 (shown 200 × 300)."""
    path = folder / "IMG_0001.JPG"
    image = Image.new("RGB", (300, 200), (200, 60, 40))
    image.paste((30, 90, 200), (0, 0, 150, 200))
    exif = Image.Exif()
    exif[0x0112] = 6
    image.save(path, quality=90, exif=exif)
    return path


def iphone_heic(folder):
    """An iPhone's HEIC photo, when this libheif can encode one (it decodes them either way)."""
    path = folder / "IMG_0002.HEIC"
    made = subprocess.run(["vips", "heifsave", str(SAMPLES / "coffee.png"), str(path), "--Q", "60"],
                          capture_output=True)
    return path if made.returncode == 0 and path.exists() else None


def decode_qr(image_path):
    """What a phone's camera reads in the QR code: zbarimg's decoding of the screenshot."""
    decoded = subprocess.run(["zbarimg", "--quiet", "--raw", str(image_path)], capture_output=True, text=True)
    assert decoded.returncode == 0, decoded.stderr
    return decoded.stdout.strip()


def test_a_phone_pairs_by_its_code_makes_a_collage_of_its_photos_shares_it_and_is_revoked(
        browser, phone_browser, lan_server):
    folder = Path(tempfile.mkdtemp(prefix="collage-phone-photos-"))
    with open_page(browser, {"url": lan_server["url"]}, viewport={"width": 1280, "height": 900}) as desktop:
        # On the computer: Pair a phone shows a QR code of a new link, and the fingerprint.
        desktop.click("#pair-open")
        expect(desktop.locator("#pair-dialog")).to_be_visible()
        link = desktop.locator("#pair-link")
        expect(link).to_have_text(re.compile(r"^https://.+/pair#[0-9a-f]{32}$"))
        link_text = link.text_content()
        assert link_text.startswith(lan_server["origin"]) and link_text != lan_server["link"]
        shown = desktop.locator("#pair-fingerprint").text_content().split()
        assert ":".join(shown) == lan_server["fingerprint"]
        expect(desktop.locator("#pair-qr")).to_be_visible()
        expect(desktop.locator("#pair-qr")).to_have_js_property("complete", True)
        shoot(desktop, "pair-a-phone")
        qr = folder / "qr.png"
        desktop.locator("#pair-qr").screenshot(path=str(qr))
        assert decode_qr(qr) == link_text
        expect(desktop.locator("#pair-none")).to_be_visible()

        # On the phone: the link opens the pairing page over HTTPS, which shows the same fingerprint.
        context = phone_context(phone_browser, accept_downloads=True)
        context.add_init_script(SHARE_SHEET)
        phone = context.new_page()
        errors = []
        phone.on("pageerror", lambda error: errors.append(str(error)))
        phone.goto(link_text)
        expect(phone.locator("#pair-fingerprint")).to_be_visible()
        assert ":".join(phone.locator("#pair-fingerprint-text").text_content().split()) == lan_server["fingerprint"]
        assert phone.evaluate("isSecureContext"), "over HTTPS the phone's page is a secure context"
        expect(phone.locator("#pair-code-label")).to_be_hidden()
        shoot(phone, "phone-pairing-page")
        if SCREENSHOTS:
            phone.screenshot(path=str(ROOT / "docs/images/phone-pairing.jpg"), type="jpeg", quality=80)
        phone.click("#pair-button")
        phone.wait_for_selector("html[data-ready]", state="attached", timeout=30000)
        # The computer's dialog, still open, shows the phone at once and a fresh code for the next.
        expect(desktop.locator("#pair-devices li")).to_have_count(1, timeout=10000)
        expect(desktop.locator("#pair-link")).not_to_have_text(link_text)
        shoot(desktop, "pair-a-phone-paired")
        if SCREENSHOTS:
            desktop.locator("#pair-dialog").screenshot(path=str(ROOT / "docs/images/pair-a-phone.jpg"), type="jpeg", quality=85)
        assert phone.url == lan_server["origin"] + "/"
        assert phone.evaluate("isSecureContext")
        expect(phone.locator("#pair-open")).to_be_hidden()
        cookie = next(cookie for cookie in context.cookies() if cookie["name"] == "collage_device")
        assert cookie["httpOnly"] and cookie["secure"] and cookie["sameSite"] == "Strict"
        # The link worked once.
        again = phone.evaluate(f"""fetch('/api/pair', {{ method: 'POST', headers: {{ 'Content-Type': 'application/json' }},
          body: JSON.stringify({{ code: '{link_text.split('#')[1]}' }}) }}).then((r) => r.status)""")
        assert again == 401

        # The phone's own photos: a JPEG on its side (EXIF), a PNG and, where libheif encodes, a HEIC.
        photos = [rotated_jpeg(folder), SAMPLES / "chelsea.png"]
        heic = iphone_heic(folder)
        if heic:
            photos.append(heic)
        phone.set_input_files("#start-photos", [str(path) for path in photos])
        expect(phone.locator("#suggest-text")).to_contain_text(f"For your {len(photos)} photos", timeout=60000)
        expect(phone.locator("#suggest-progress")).to_be_hidden(timeout=60000)
        library = phone.evaluate("fetch('/api/photos').then((r) => r.json())")
        by_name = {photo["name"]: photo for photo in library}
        assert (by_name["IMG_0001.JPG"]["width"], by_name["IMG_0001.JPG"]["height"]) == (200, 300)
        if heic:
            assert by_name["IMG_0002.HEIC"]["format"] in ("heif", "heic")
        # A connection that drops mid-upload: the page sends the photo again, and the library keeps
        # one copy of it.
        attempts = []

        def flaky(route):
            attempts.append(route.request.method)
            if len(attempts) == 1:
                route.abort("connectionreset")
            else:
                route.continue_()

        phone.route("**/api/photos", lambda route: flaky(route) if route.request.method == "POST" else route.continue_())
        resent = phone.evaluate("""async (bytes) => {
          const { api } = await import('/static/api.js');
          return api.upload([new File([new Uint8Array(bytes)], 'IMG_0001.JPG', { type: 'image/jpeg' })]);
        }""", list(photos[0].read_bytes()))
        phone.unroute("**/api/photos")
        assert len(attempts) == 2, attempts
        assert [photo["id"] for photo in resent["photos"]] == [by_name["IMG_0001.JPG"]["id"]]
        assert len(phone.evaluate("fetch('/api/photos').then((r) => r.json())")) == len(library)
        phone.locator("#suggest-grid .layout-option").first.click()
        expect(phone.locator("#editor-view")).to_be_visible(timeout=30000)
        shoot(phone, "phone-editor-paired")

        # Share: the export goes to the phone's share sheet as an image file.
        phone.click("#export-button")
        expect(phone.locator("#export-share")).to_be_visible()
        phone.click("#export-share")
        deadline = time.monotonic() + 60
        while not phone.evaluate("window.sharedFiles.length") and time.monotonic() < deadline:
            phone.wait_for_timeout(200)
        shared = phone.evaluate("""(async () => {
          const file = window.sharedFiles[0];
          const bitmap = await createImageBitmap(file);
          return { name: file.name, type: file.type, size: file.size, width: bitmap.width, height: bitmap.height };
        })()""")
        assert shared["type"] in ("image/jpeg", "image/png") and shared["size"] > 10000, shared
        assert shared["width"] >= 1000 and shared["height"] >= 1000, shared
        assert not errors, errors

        # On the computer: the phone is listed, by its browser's name, and revoked.
        desktop.click("#pair-dialog button:has-text('Done')")
        desktop.click("#pair-open")
        expect(desktop.locator("#pair-devices li")).to_have_count(1)
        expect(desktop.locator("#pair-devices li")).to_contain_text("iPhone (Safari)")
        desktop.click("#pair-devices button:has-text('Revoke')")
        desktop.click("#ask-confirm")
        expect(desktop.locator("#pair-devices li")).to_have_count(0)

        # The phone, still in the editor, is taken to the pairing page, which says why; its cookie,
        # replayed elsewhere, opens nothing.
        # (Started, not awaited: the page leaves as the answer comes, taking the call's context.)
        phone.evaluate("() => { import('/static/api.js').then(({ api }) => api.collages()).catch(() => null); }")
        expect(phone.locator("h1")).to_have_text("Pair this device again", timeout=10000)
        shoot(phone, "phone-revoked")
        answer = phone.goto(lan_server["origin"] + "/")
        assert answer.status == 401
        expect(phone.locator("h1")).to_have_text("Pair this device")
        context.close()
        thief = phone_context(phone_browser)
        thief.add_cookies([cookie])
        stolen = thief.new_page()
        stolen.goto(lan_server["origin"] + "/pair")
        assert stolen.evaluate("fetch('/api/collages').then((r) => r.status)") == 401
        thief.close()
    shutil.rmtree(folder, ignore_errors=True)


def served_fingerprint(origin):
    """The SHA-256 of the certificate the server presents, as a phone's browser would see it."""
    host, port = origin.removeprefix("https://").rsplit(":", 1)
    pem = ssl.get_server_certificate((host, int(port)))
    digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest().upper()
    return ":".join(digest[index:index + 2] for index in range(0, 64, 2))


def test_the_certificate_is_made_once_kept_with_the_library_and_is_the_one_shown(home_network):
    library = tempfile.mkdtemp(prefix="collage-lan-")
    config = tempfile.mkdtemp(prefix="collage-lan-config-")
    try:
        process, first = start_lan_server(library, home_network, config)
        try:
            assert served_fingerprint(first["origin"]) == first["fingerprint"]
            kept = Path(library) / "lan-certificate.pem"
            assert kept.stat().st_mode & 0o077 == 0, "the key is readable by its owner only"
        finally:
            stop(process)
        process, second = start_lan_server(library, home_network, config)
        try:
            assert second["fingerprint"] == first["fingerprint"], "a phone that accepted it once is not asked again"
            assert served_fingerprint(second["origin"]) == first["fingerprint"]
            # Enter shows a new code; the old one still works until it is used or expires.
            process.stdin.write(b"\n")
            process.stdin.flush()
            printed = read_until(process, r"pair#[0-9a-f]{32}", seconds=10)
            codes = re.findall(r"pair#([0-9a-f]{32})", printed)
            assert codes and codes[0] != second["link"].split("#")[1]
        finally:
            stop(process)
    finally:
        shutil.rmtree(library, ignore_errors=True)
        shutil.rmtree(config, ignore_errors=True)
