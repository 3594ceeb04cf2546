"""Ordinary photos, lifted as a new user would: ours beside rembg with alpha matting, to look at.

The scenes of bench.py know the true alpha but are composites; what people lift are photos.
These have no known answer, so this part measures only what needs none and draws the rest for a
person to judge:
- stray parts: pieces of a sticker at least 10 % opaque that do not touch its largest piece, nor
  lie a pixel's gap from it (a strand broken for a pixel, which the matte keeps, reads as one);
- see-through subject: the share of the sticker's body (its alpha at least half, closed over
  holes up to 5 px) left under 90 % opaque, where a new background would show through fur, a
  cap or a chin that the model was unsure of;
- time per photo with a warm model, file to file (rembg as its `rembg i` command runs it), the
  quickest of three rounds that the two take in turns.
Writes docs/images/matting-photos.jpg: each photo, ours and rembg --alpha-matting over blue.
Photos: the samples (scikit-image's); a portrait, a flower and a raccoon that matplotlib's,
scikit-learn's and SciPy's wheels ship; and a mandrill, an apple, a butterfly, a squirrel, sweets
and things on a desk from Debian's opencv-doc package; bench/matting/fetch-photos extracts them
into .build/bench-photos (skipped, with a message, when they are not there)."""
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
from PIL import Image
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from results import record  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(ROOT, ".build", "bench-matting", "photos")
FETCHED = os.path.join(ROOT, ".build", "bench-photos")
COLLAGE = os.environ.get("COLLAGE_BINARY") or os.path.join(ROOT, ".build", "release", "collage")
BLUE = np.array([30, 60, 200], dtype=np.float64)
PHOTOS = [
    os.path.join(ROOT, "samples", "chelsea.png"),
    os.path.join(ROOT, "samples", "coffee.png"),
    os.path.join(ROOT, "samples", "motorcycle_left.png"),
    os.path.join(ROOT, "samples", "astronaut.png"),
    os.path.join(ROOT, "samples", "horse.png"),
    os.path.join(FETCHED, "grace_hopper.jpg"),
    os.path.join(FETCHED, "flower.jpg"),
    os.path.join(FETCHED, "raccoon.png"),
    os.path.join(FETCHED, "baboon.jpg"),
    os.path.join(FETCHED, "apple.jpg"),
    os.path.join(FETCHED, "butterfly.jpg"),
    os.path.join(FETCHED, "squirrel_cls.jpg"),
    os.path.join(FETCHED, "smarties.png"),
    os.path.join(FETCHED, "stuff.jpg"),
]
# Photos of several things (sweets, things on a desk): their pieces apart are the things, not
# strays, so they are counted but left out of the stray parts' sum.
SEVERAL_THINGS = {"smarties.png", "stuff.jpg"}


def stray_parts(alpha):
    """Pieces at least 10 % opaque more than a pixel's gap from the largest one."""
    labels, count = ndimage.label(alpha >= 0.1, structure=np.ones((3, 3)))
    if count < 2:
        return 0
    areas = ndimage.sum_labels(np.ones_like(alpha), labels, index=np.arange(1, count + 1))
    largest = int(np.argmax(areas)) + 1
    # Two pixels' width from the largest piece, across a gap a pixel wide, diagonals included.
    reach = ndimage.distance_transform_edt(labels != largest) < 2.9
    return count - 1 - (len(np.unique(labels[reach & (labels != largest) & (labels > 0)])))


def see_through(alpha):
    """The share (%) of the sticker's body left under 90 % opaque."""
    body = ndimage.binary_closing(alpha >= 0.5, structure=np.ones((11, 11)), border_value=0)
    body = ndimage.binary_fill_holes(body) & ndimage.binary_erosion(body, iterations=3)
    return 100 * float((alpha[body] < 0.9).mean()) if body.any() else 0.0


def ours(paths):
    result = subprocess.run([COLLAGE, "sticker", "--json", "--output-dir", os.path.join(WORK, "ours"), *paths],
                            capture_output=True, check=True)
    entries = json.loads(result.stdout)
    return [np.asarray(Image.open(entry["file"]).convert("RGBA")) for entry in entries], \
        [entry["milliseconds"] for entry in entries]


def rembg(paths):
    """rembg with alpha matting as its own command runs it: the photo's bytes in, PNG bytes out,
    written to a file (ours is timed from the photo's file to the sticker's too)."""
    from rembg import new_session, remove
    session = new_session("u2netp")
    out = os.path.join(WORK, "rembg-matting")
    os.makedirs(out, exist_ok=True)
    images, times = [], []
    for path in paths:
        target = os.path.join(out, os.path.splitext(os.path.basename(path))[0] + ".png")
        started = time.perf_counter()
        with open(path, "rb") as source:
            made = remove(source.read(), session=session, alpha_matting=True)
        with open(target, "wb") as sink:
            sink.write(made)
        times.append((time.perf_counter() - started) * 1000)
        rgba = np.asarray(Image.open(target).convert("RGBA"))
        box = Image.fromarray(rgba[..., 3]).getbbox() or (0, 0, 1, 1)
        images.append(rgba[box[1]:box[3], box[0]:box[2]])
    return images, times


def over_blue(rgba):
    a = rgba[..., 3:4].astype(np.float64) / 255
    return Image.fromarray((a * rgba[..., :3] + (1 - a) * BLUE).astype(np.uint8))


def fitted(image, side):
    scale = side / max(image.size)
    return image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))), Image.LANCZOS)


def main():
    os.makedirs(WORK, exist_ok=True)
    missing = [path for path in PHOTOS if not os.path.exists(path)]
    for path in missing:
        print(f"bench/matting photos: skipping {os.path.relpath(path, ROOT)} (not fetched)")
    paths = [path for path in PHOTOS if path not in missing]
    if not paths:
        print("bench/matting photos: no photos to lift; run scripts/fetch-samples and bench/matting/fetch-photos")
        return 0
    # The two take turns, three rounds each, so a slow spell of a shared machine falls on both.
    mine, my_times = ours(paths)
    theirs, their_times = rembg(paths)
    for _ in range(2):
        my_times = [min(a, b) for a, b in zip(my_times, ours(paths)[1])]
        their_times = [min(a, b) for a, b in zip(their_times, rembg(paths)[1])]
    print(f"\n{len(paths)} ordinary photos, no known answer (see docs/images/matting-photos.jpg)")
    print(f"{'photo':22} {'size':>10} {'stray ours':>11} {'stray AM':>9} {'see-through ours %':>19} "
          f"{'AM %':>6} {'ms ours':>8} {'ms AM':>7}")
    for path, a, b, ta, tb in zip(paths, mine, theirs, my_times, their_times):
        size = Image.open(path).size
        several = " (things)" if os.path.basename(path) in SEVERAL_THINGS else ""
        print(f"{os.path.basename(path) + several:22} {size[0]:>4} x {size[1]:<4} {stray_parts(a[..., 3] / 255):11d} "
              f"{stray_parts(b[..., 3] / 255):9d} {see_through(a[..., 3] / 255):19.1f} "
              f"{see_through(b[..., 3] / 255):6.1f} {ta:8.0f} {tb:7.0f}")
    strays = sum(stray_parts(a[..., 3] / 255) for path, a in zip(paths, mine)
                 if os.path.basename(path) not in SEVERAL_THINGS)
    # The first lift warms the model in each method; the medians leave it out.
    ratio = statistics.median(my_times[1:] or my_times) / statistics.median(their_times[1:] or their_times)
    record("matting.photos.stray_parts", strays, "parts")
    record("matting.photos.time_over_alpha_matting", ratio, "time ratio")
    print(f"ours / rembg --alpha-matting on the photos: time {ratio:.2f}; stray parts, ours: {strays}")
    # Two photos a row, each as photo | ours | alpha matting, with a wider gap between the two.
    side, gap, between = 300, 10, 40
    rows = (len(paths) + 1) // 2
    sheet = Image.new("RGB", (6 * (side + gap) + between, rows * (side + gap)), (255, 255, 255))
    for index, (path, a, b) in enumerate(zip(paths, mine, theirs)):
        row, half = divmod(index, 2)
        for column, picture in enumerate([Image.open(path).convert("RGB"), over_blue(a), over_blue(b)]):
            tile = fitted(picture, side)
            left = (3 * half + column) * (side + gap) + half * between
            sheet.paste(tile, (left + (side - tile.width) // 2, row * (side + gap) + (side - tile.height) // 2))
    target = os.path.join(ROOT, "docs", "images", "matting-photos.jpg")
    sheet.save(target, quality=85)
    print(f"wrote {os.path.relpath(target, ROOT)}: photo | ours | rembg --alpha-matting")
    return 0


if __name__ == "__main__":
    sys.exit(main())
