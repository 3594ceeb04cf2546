"""Edge benchmark: how clean a sticker's edge is, ours against rembg on the same u2netp.onnx.

Scenes with a known answer: a furry subject (the cat photo's own fur as its colour) whose edge is
fine strands of varying opacity (drawn with 4x supersampling, so the true alpha is known to the
pixel), composited over real photos. Each method lifts the subject; scored against the truth:
- SAD: the sum of |alpha - true alpha| over the image, in thousands;
- gradient error: the sum of squared differences of the alphas' gradients in the edge band, in
  thousands (it grows when strands are blurred or lost);
- edge colour error: the sticker composited over a new background (blue) against the true
  foreground composited there, mean absolute error per channel (0-255) in the edge band;
- fringe: the same with the true alpha and the sticker's colours, where the sticker keeps
  anything: how much of the old background its colours carry, apart from the alpha's errors;
- time per photo with a warm model.
Run through bench/matting/run, which prints ratios ours / rembg."""
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from results import record  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(ROOT, ".build", "bench-matting")
COLLAGE = os.environ.get("COLLAGE_BINARY") or os.path.join(ROOT, ".build", "release", "collage")
SAMPLES = os.path.join(ROOT, "samples")
SIZE = (800, 600)
SUPERSAMPLE = 4
BLUE = np.array([30, 60, 200], dtype=np.float64)


def scene(index, background_name):
    """A scene: the photo, the true alpha (0-1) and the true foreground (0-255), seeded."""
    rng = random.Random(index)
    width, height = SIZE
    big = (width * SUPERSAMPLE, height * SUPERSAMPLE)
    mask = Image.new("L", big, 0)
    draw = ImageDraw.Draw(mask)
    cx, cy = width * rng.uniform(0.4, 0.6), height * rng.uniform(0.45, 0.6)
    rx, ry = width * rng.uniform(0.16, 0.22), height * rng.uniform(0.22, 0.3)
    s = SUPERSAMPLE
    draw.ellipse([(cx - rx) * s, (cy - ry) * s, (cx + rx) * s, (cy + ry) * s], fill=255)
    # Strands: from the edge outwards, curving, 1-3 px wide, of varying opacity.
    strands = Image.new("L", big, 0)
    strand_draw = ImageDraw.Draw(strands)
    for _ in range(900):
        angle = rng.uniform(0, 2 * math.pi)
        x0, y0 = cx + rx * 0.92 * math.cos(angle), cy + ry * 0.92 * math.sin(angle)
        length = rng.uniform(15, 70)
        bend = rng.uniform(-0.6, 0.6)
        points = []
        for step in range(12):
            t = step / 11
            a = angle + bend * t
            points.append(((x0 + length * t * math.cos(a)) * s, (y0 + length * t * math.sin(a)) * s))
        strand_draw.line(points, fill=int(rng.uniform(110, 255)), width=int(rng.uniform(1, 3) * s))
    alpha_big = np.maximum(np.asarray(mask, dtype=np.float64), np.asarray(strands, dtype=np.float64))
    alpha = np.asarray(Image.fromarray(alpha_big.astype(np.uint8)).resize(SIZE, Image.BOX), dtype=np.float64) / 255
    fur = Image.open(os.path.join(SAMPLES, "chelsea.png")).convert("RGB").resize(SIZE, Image.BICUBIC)
    foreground = np.asarray(fur, dtype=np.float64)
    background = np.asarray(
        Image.open(os.path.join(SAMPLES, background_name)).convert("RGB").resize(SIZE, Image.BICUBIC)
        .filter(ImageFilter.GaussianBlur(3)), dtype=np.float64)
    photo = alpha[..., None] * foreground + (1 - alpha[..., None]) * background
    return np.clip(photo + 0.5, 0, 255).astype(np.uint8), alpha, foreground


def band(alpha):
    """The edge band: pixels within 3 px of a partly transparent true alpha."""
    unknown = (alpha > 0.01) & (alpha < 0.99)
    grown = Image.fromarray((unknown * 255).astype(np.uint8)).filter(ImageFilter.MaxFilter(7))
    return np.asarray(grown) > 0


def scores(rgba, truth_alpha, truth_foreground):
    alpha = rgba[..., 3].astype(np.float64) / 255
    edge = band(truth_alpha)
    sad = np.abs(alpha - truth_alpha).sum() / 1000
    gy, gx = np.gradient(alpha)
    ty, tx = np.gradient(truth_alpha)
    gradient = (((gx - tx) ** 2 + (gy - ty) ** 2) * edge).sum() / 1000
    made = alpha[..., None] * rgba[..., :3].astype(np.float64) + (1 - alpha[..., None]) * BLUE
    truth = truth_alpha[..., None] * truth_foreground + (1 - truth_alpha[..., None]) * BLUE
    colour = np.abs(made - truth)[edge].mean()
    # The colours alone: the sticker's colours under the true alpha, where the sticker has any,
    # so a fringe of the old background shows apart from the alpha's own errors.
    kept = edge & (alpha > 0.05)
    tinted = truth_alpha[..., None] * rgba[..., :3].astype(np.float64) + (1 - truth_alpha[..., None]) * BLUE
    fringe = np.abs(tinted - truth)[kept].mean()
    return sad, gradient, colour, fringe


def placed(path, x, y):
    """A sticker file put back where it was cut from, as a full-size RGBA array."""
    sticker = np.asarray(Image.open(path).convert("RGBA"))
    canvas = np.zeros((SIZE[1], SIZE[0], 4), dtype=np.uint8)
    top, left = max(0, y), max(0, x)
    bottom, right = min(SIZE[1], y + sticker.shape[0]), min(SIZE[0], x + sticker.shape[1])
    canvas[top:bottom, left:right] = sticker[top - y:bottom - y, left - x:right - x]
    return canvas


def ours(paths, raw):
    out = os.path.join(WORK, "ours-raw" if raw else "ours")
    command = [COLLAGE, "sticker", "--json", "--output-dir", out, *paths] + ([] if raw else ["--clean-edges"])
    result = subprocess.run(command, capture_output=True, check=True)
    entries = json.loads(result.stdout)
    images = [placed(entry["file"], int(entry["x"]), int(entry["y"])) for entry in entries]
    return images, statistics.median(entry["milliseconds"] for entry in entries[1:])


def rembg(paths, matting):
    from rembg import new_session, remove
    session = new_session("u2netp")
    images, times = [], []
    for path in paths:
        started = time.perf_counter()
        image = remove(Image.open(path), session=session, alpha_matting=matting)
        times.append((time.perf_counter() - started) * 1000)
        images.append(np.asarray(image.convert("RGBA")))
    return images, statistics.median(times[1:])


def main():
    os.makedirs(WORK, exist_ok=True)
    backgrounds = ["coffee.png", "rocket.jpg", "astronaut.png", "horse.png", "coffee.png", "rocket.jpg"]
    scenes, paths = [], []
    for index, name in enumerate(backgrounds):
        photo, alpha, foreground = scene(index, name)
        path = os.path.join(WORK, f"scene-{index}.png")
        Image.fromarray(photo).save(path)
        scenes.append((alpha, foreground))
        paths.append(path)
    methods = {
        "collage sticker": ours(paths, raw=True),
        "collage sticker --clean-edges": ours(paths, raw=False),
        "rembg (u2netp)": rembg(paths, matting=False),
        "rembg --alpha-matting": rembg(paths, matting=True),
    }
    print(f"\n{len(paths)} scenes of {SIZE[0]} x {SIZE[1]} px: fine strands over real photos, known alpha")
    print(f"{'method':30} {'SAD':>8} {'gradient':>9} {'edge colour':>12} {'fringe':>8} {'ms/photo':>9}")
    results = {}
    for name, (images, milliseconds) in methods.items():
        table = np.array([scores(image, alpha, foreground) for image, (alpha, foreground) in zip(images, scenes)])
        sad, gradient, colour, fringe = table.mean(axis=0)
        results[name] = (sad, gradient, colour, fringe, milliseconds)
        print(f"{name:30} {sad:8.1f} {gradient:9.2f} {colour:12.2f} {fringe:8.2f} {milliseconds:9.0f}")
    ours_scores = results["collage sticker --clean-edges"]
    matting = results["rembg --alpha-matting"]
    record("matting.clean_edges_over_alpha_matting.sad", ours_scores[0] / matting[0], "error ratio")
    record("matting.clean_edges_over_alpha_matting.edge_colour", ours_scores[2] / matting[2], "error ratio")
    record("matting.clean_edges_over_alpha_matting.time", ours_scores[4] / matting[4], "time ratio")
    print(f"\nours / rembg --alpha-matting: SAD {ours_scores[0] / matting[0]:.2f}, gradient "
          f"{ours_scores[1] / matting[1]:.2f}, edge colour {ours_scores[2] / matting[2]:.2f}, "
          f"fringe {ours_scores[3] / matting[3]:.2f}, time {ours_scores[4] / matting[4]:.2f}")
    # A zoomed look at one edge over blue: truth, rembg with alpha matting, ours, ours cleaned.
    alpha, foreground = scenes[0]
    ys, xs = np.nonzero((alpha > 0.05) & (alpha < 0.95))
    cy, cx = int(np.median(ys)), int(xs.max()) - 40
    box = (max(0, cx - 60), max(0, cy - 45), max(0, cx - 60) + 120, max(0, cy - 45) + 90)
    def over_blue(rgba):
        a = rgba[..., 3:4].astype(np.float64) / 255
        return (a * rgba[..., :3] + (1 - a) * BLUE).astype(np.uint8)
    truth = (alpha[..., None] * foreground + (1 - alpha[..., None]) * BLUE).astype(np.uint8)
    tiles = [truth, over_blue(methods["rembg --alpha-matting"][0][0]),
             over_blue(methods["collage sticker"][0][0]), over_blue(methods["collage sticker --clean-edges"][0][0])]
    strip = Image.new("RGB", (4 * 360 + 30, 270), (255, 255, 255))
    for index, tile in enumerate(tiles):
        crop = Image.fromarray(tile).crop(box).resize((360, 270), Image.NEAREST)
        strip.paste(crop, (index * 370, 0))
    target = os.path.join(ROOT, "docs", "images", "matting-edges.png")
    strip.save(target)
    print(f"wrote {os.path.relpath(target, ROOT)}: truth | rembg --alpha-matting | ours | ours --clean-edges")


if __name__ == "__main__":
    sys.exit(main())
