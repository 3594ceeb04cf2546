"""Packs 12, 30 and 60 stickers of mixed shapes on A4 with `collage sheet` and with a plain
shelf packing of their cut lines' boxes (rows left to right, tallest first, the same gap and
margins), and prints how densely each covers the paper and how long `collage sheet` takes.

Density: the area inside the cut lines over the paper used, counting full pages and the last
page down to its lowest cut line. Run through bench/sheet/run."""

import json
import math
import os
import random
import subprocess
import sys
import time

from PIL import Image, ImageDraw

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from results import record  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(ROOT, ".build", "bench-sheet")
COLLAGE = os.path.join(ROOT, ".build", "release", "collage")
PAGE = (210.0, 297.0)
MARGIN, GAP = 6.0, 3.0


def shape(kind, side, rng):
    """A transparent sticker of `side` pixels with one opaque shape of the kind named."""
    image = Image.new("RGBA", (side, side), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    colour = tuple(rng.randrange(40, 220) for _ in range(3)) + (255,)
    s = side
    if kind == "disc":
        draw.ellipse([s * 0.05, s * 0.05, s * 0.95, s * 0.95], fill=colour)
    elif kind == "ellipse":
        draw.ellipse([s * 0.05, s * 0.3, s * 0.95, s * 0.7], fill=colour)
    elif kind == "star":
        points = []
        for i in range(10):
            radius = s * (0.45 if i % 2 == 0 else 0.2)
            angle = math.pi / 5 * i - math.pi / 2
            points.append((s / 2 + radius * math.cos(angle), s / 2 + radius * math.sin(angle)))
        draw.polygon(points, fill=colour)
    elif kind == "ell":
        draw.rectangle([s * 0.05, s * 0.05, s * 0.35, s * 0.95], fill=colour)
        draw.rectangle([s * 0.05, s * 0.65, s * 0.95, s * 0.95], fill=colour)
    elif kind == "triangle":
        draw.polygon([(s * 0.05, s * 0.95), (s * 0.95, s * 0.95), (s * 0.05, s * 0.05)], fill=colour)
    else:  # a crescent
        draw.ellipse([s * 0.05, s * 0.05, s * 0.95, s * 0.95], fill=colour)
        draw.ellipse([s * 0.3, s * 0.0, s * 1.2, s * 0.9], fill=(0, 0, 0, 0))
    return image


def stickers(count, rng):
    kinds = ["disc", "ellipse", "star", "ell", "triangle", "crescent"]
    paths = []
    for index in range(count):
        path = os.path.join(WORK, f"sticker-{count}-{index}.png")
        shape(kinds[index % len(kinds)], 400, rng).save(path)
        paths.append(f"{path}@{rng.randrange(25, 61)}mm")
    return paths


def density(placements, pages_used):
    """Area inside the cut lines over the paper used (full pages, the last down to its lowest line)."""
    area = sum(p["area"] for p in placements)
    last = max(p["page"] for p in placements)
    bottom = max(p["bottom"] for p in placements if p["page"] == last)
    used = (last - 1) * PAGE[0] * PAGE[1] + PAGE[0] * min(PAGE[1], bottom + MARGIN)
    return area / used, last


def shelf(placements):
    """Plain shelf packing of the cut lines' boxes (as drawn, no turning), tallest first."""
    boxes = sorted(((p["cutBounds"][2] - p["cutBounds"][0], p["cutBounds"][3] - p["cutBounds"][1], p["area"])
                    for p in placements), key=lambda box: -box[1])
    page, x, y, row = 1, MARGIN, MARGIN, 0.0
    placed = []
    for width, height, area in boxes:
        if x + width > PAGE[0] - MARGIN:
            x, y, row = MARGIN, y + row + GAP, 0.0
        if y + height > PAGE[1] - MARGIN:
            page, x, y, row = page + 1, MARGIN, MARGIN, 0.0
        placed.append({"page": page, "bottom": y + height, "area": area})
        x += width + GAP
        row = max(row, height)
    return placed


def main():
    os.makedirs(WORK, exist_ok=True)
    rng = random.Random(7)
    print(f"bench/sheet: A4, {GAP:g} mm gap, {MARGIN:g} mm margins, stickers 25-60 mm of six shapes")
    print(f"{'stickers':>9} {'collage sheet':>22} {'shelf of boxes':>22} {'density ratio':>14} {'time':>9} {'packing':>9}")
    for count in (12, 30, 60):
        inputs = stickers(count, rng)
        started = time.perf_counter()
        result = subprocess.run([COLLAGE, "sheet", *inputs, "--page", "a4", "--gap", f"{GAP:g}mm",
                                 "--margin", f"{MARGIN:g}mm", "-o", os.path.join(WORK, f"sheet-{count}.pdf"),
                                 "--json"], capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        if result.returncode != 0:
            sys.exit(f"collage sheet failed: {result.stderr}")
        report = json.loads(result.stdout)
        ours = [dict(p, bottom=p["cutBounds"][3]) for p in report["stickers"]]
        our_density, our_pages = density(ours, report["pages"])
        base_density, base_pages = density(shelf(report["stickers"]), None)
        record(f"sheet.stickers{count}.seconds", elapsed, "s")
        record(f"sheet.stickers{count}.density_over_shelf", our_density / base_density, "density ratio", better="higher")
        print(f"{count:>9} {our_density * 100:9.1f} % ({our_pages} page{'s' if our_pages > 1 else ' '}) "
              f"{base_density * 100:9.1f} % ({base_pages} page{'s' if base_pages > 1 else ' '}) "
              f"{our_density / base_density:14.2f} {elapsed:8.2f}s {report['packMilliseconds'] / 1000:8.2f}s")


main()
