"""Edge benchmark: how clean a sticker's edge is, ours against rembg on the same u2netp.onnx.

Scenes with a known answer: a furry subject (the cat photo's own fur as its colour) whose edge is
fine strands of varying opacity (drawn with 4x supersampling, so the true alpha is known to the
pixel), composited over real photos. Besides six scenes of long strands, four kinds show what
people saw go wrong: white fur standing on a bright floor (where an edge tears), fur beside
out-of-focus lights (a bokeh disc kept as a blob), long thin whiskers over a busy, sharp
background, and a hard-edged glazed dish on a grained wooden table (the grain taken for strands,
a streaky fringe: the coffee sample's saucer). Each method lifts the subject; scored against the truth:
- SAD: the sum of |alpha - true alpha| over the image, in thousands;
- gradient error: the sum of squared differences of the alphas' gradients in the edge band, in
  thousands (it grows when strands are blurred or lost);
- edge colour error: the sticker composited over a new background (blue) against the true
  foreground composited there, mean absolute error per channel (0-255) in the edge band;
- fringe: the same with the true alpha and the sticker's colours, where the sticker keeps
  anything: how much of the old background its colours carry, apart from the alpha's errors;
- stray parts, haze and tearing (see `defects`);
- time per photo with a warm model, from the photo's file to the sticker's (rembg as its `rembg i`
  command does it: bytes in, PNG bytes out), the quickest of three rounds that the methods take
  in turns.
Run through bench/matting/run, which prints ratios ours / rembg and writes
docs/images/matting-edges.png and docs/images/matting-scenes.jpg."""
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
from scipy import ndimage

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
# Each method lifts every scene this many times, the methods taking turns (see in_rounds).
ROUNDS = 3


KINDS = {
    # kind: (what it shows, backgrounds of its scenes)
    "strands": ("fine strands over real photos", ["coffee.png", "rocket.jpg", "astronaut.png", "horse.png",
                                                  "coffee.png", "rocket.jpg"]),
    "bright floor": ("white fur standing on a bright floor", ["coffee.png", "rocket.jpg"]),
    "bokeh": ("fur beside out-of-focus highlights", ["rocket.jpg", "hubble_deep_field.jpg"]),
    "whiskers": ("long thin whiskers across a busy, sharp background", ["hubble_deep_field.jpg", "garage wall"]),
    "grain": ("a hard-edged product on a grained wooden table", ["coffee table", "coffee table"]),
}
# Part of a photo, as (photo, box): a background with detail but nothing the model takes for a
# subject of its own (a cup or an astronaut there is lifted by every method, and hides the edge).
REGIONS = {"garage wall": ("motorcycle_left.png", (0, 0, 290, 120))}
# Bare table beside the saucer, repeated (mirrored) at its own scale: grain a few pixels apart,
# running across the edge, in the saucer's own browns.
TEXTURES = {"coffee table": ("coffee.png", (490, 40, 600, 400))}


def fur_body(rng, kind):
    """The subject's true alpha at 4x (an ellipse and its strands) and where it stands."""
    width, height = SIZE
    big = (width * SUPERSAMPLE, height * SUPERSAMPLE)
    s = SUPERSAMPLE
    mask = Image.new("L", big, 0)
    draw = ImageDraw.Draw(mask)
    cx, cy = width * rng.uniform(0.4, 0.6), height * rng.uniform(0.45, 0.6)
    rx, ry = width * rng.uniform(0.16, 0.22), height * rng.uniform(0.22, 0.3)
    draw.ellipse([(cx - rx) * s, (cy - ry) * s, (cx + rx) * s, (cy + ry) * s], fill=255)
    # Strands: from the edge outwards, curving, 1-3 px wide, of varying opacity.
    strands = Image.new("L", big, 0)
    strand_draw = ImageDraw.Draw(strands)
    for _ in range({"strands": 900, "grain": 0}.get(kind, 500)):
        angle = rng.uniform(0, 2 * math.pi)
        x0, y0 = cx + rx * 0.92 * math.cos(angle), cy + ry * 0.92 * math.sin(angle)
        length = rng.uniform(15, 70) if kind == "strands" else rng.uniform(6, 30)
        bend = rng.uniform(-0.6, 0.6)
        points = []
        for step in range(12):
            t = step / 11
            a = angle + bend * t
            points.append(((x0 + length * t * math.cos(a)) * s, (y0 + length * t * math.sin(a)) * s))
        strand_draw.line(points, fill=int(rng.uniform(110, 255)), width=int(rng.uniform(1, 3) * s))
    alpha = np.maximum(np.asarray(mask, dtype=np.float64), np.asarray(strands, dtype=np.float64))
    return alpha, (cx, cy, rx, ry)


def downsampled(big):
    """A 4x coverage plane (0-255) at the scene's size, 0-1."""
    return np.asarray(Image.fromarray(big.astype(np.uint8)).resize(SIZE, Image.BOX), dtype=np.float64) / 255


def photo_of(name, blur):
    name, box = REGIONS.get(name, (name, None))
    image = Image.open(os.path.join(SAMPLES, name)).convert("RGB")
    image = (image.crop(box) if box else image).resize(SIZE, Image.BICUBIC)
    return np.asarray(image.filter(ImageFilter.GaussianBlur(blur)) if blur else image, dtype=np.float64)


def texture_of(name):
    """A texture from part of a photo, mirrored tile by tile to the scene's size at its own scale."""
    name, box = TEXTURES[name]
    tile = np.asarray(Image.open(os.path.join(SAMPLES, name)).convert("RGB").crop(box), dtype=np.float64)
    width, height = SIZE
    row = np.concatenate([tile, tile[:, ::-1]] * (width // (2 * tile.shape[1]) + 1), axis=1)[:, :width]
    return np.concatenate([row, row[::-1]] * (height // (2 * row.shape[0]) + 1), axis=0)[:height]


def scene(index, kind, background_name):
    """A scene: the photo, the true alpha (0-1) and the true foreground (0-255), seeded."""
    rng = random.Random(index)
    width, height = SIZE
    s = SUPERSAMPLE
    alpha_big, (cx, cy, rx, ry) = fur_body(rng, kind)
    fur = np.asarray(Image.open(os.path.join(SAMPLES, "chelsea.png")).convert("RGB").resize(SIZE, Image.BICUBIC),
                     dtype=np.float64)
    if kind == "bright floor":
        # White fur, lit from above: the cat's own texture, pale. The floor is brighter than
        # the fur's shadows and darker than its highlights, where a projection tears.
        grey = fur.mean(axis=2, keepdims=True)
        foreground = np.repeat(165 + 0.4 * grey, 3, axis=2) * np.array([1.0, 0.99, 0.96])
        # A wall far behind, out of focus: its colours without the objects in it.
        background = photo_of(background_name, 30)
        floor_top = int(cy + ry * 0.75)
        floor_rng = np.random.default_rng(index)
        floor = np.array([236.0, 230.0, 218.0]) + floor_rng.normal(0, 3, (height - floor_top, width, 1))
        ramp = np.linspace(0.94, 1.0, height - floor_top)[:, None, None]
        background[floor_top:] = floor * ramp
    elif kind == "bokeh":
        foreground = fur
        background = photo_of(background_name, 8) * 0.55
        # Discs of out-of-focus light; the first sits just past the subject's strands, by its
        # "ear" (up and to one side), where a soft mask reaches out and joins it.
        discs = Image.new("L", (width * s, height * s), 0)
        disc_draw = ImageDraw.Draw(discs)
        angle = rng.uniform(-2.2, -0.9)
        radius = rng.uniform(14, 22)
        # 6 px clear of the longest strand (30 px), along the outward direction.
        gap = 30 + 6 + radius
        spots = [(cx + (rx + gap) * math.cos(angle), cy + (ry + gap) * math.sin(angle), radius)]
        for _ in range(7):
            spots.append((rng.uniform(0, width), rng.uniform(0, height * 0.6), rng.uniform(10, 30)))
        for x, y, r in spots:
            disc_draw.ellipse([(x - r) * s, (y - r) * s, (x + r) * s, (y + r) * s], fill=int(rng.uniform(200, 255)))
        light = np.asarray(discs.resize(SIZE, Image.BOX).filter(ImageFilter.GaussianBlur(2)), dtype=np.float64) / 255
        background = background * (1 - light[..., None]) + np.array([255.0, 226.0, 170.0]) * light[..., None]
    elif kind == "whiskers":
        background = photo_of(background_name, 0)
        whiskers = Image.new("L", (width * s, height * s), 0)
        whisker_draw = ImageDraw.Draw(whiskers)
        for side in (-1, 1):
            for _ in range(6):
                x0 = cx + side * rx * 0.85
                y0 = cy + rng.uniform(-0.1, 0.25) * ry
                angle = (0 if side > 0 else math.pi) + rng.uniform(-0.35, 0.35)
                length = rng.uniform(70, 140)
                x1, y1 = x0 + length * math.cos(angle), y0 + length * math.sin(angle)
                whisker_draw.line([(x0 * s, y0 * s), (x1 * s, y1 * s)], fill=235, width=s)
        whisker_big = np.asarray(whiskers, dtype=np.float64)
        alpha_big = np.maximum(alpha_big, whisker_big)
        share = downsampled(whisker_big)
        white = np.array([246.0, 244.0, 238.0])
        foreground = fur * (1 - share[..., None]) + white * share[..., None]
    elif kind == "grain":
        # A glazed red-brown dish, lit from above with a soft highlight: one hard edge, no strands.
        ys, xs = np.mgrid[0:height, 0:width].astype(np.float64)
        shade = 0.7 + 0.45 * np.clip((cy + ry - ys) / (2 * ry), 0, 1)
        shine = np.exp(-(((xs - cx + rx * 0.4) / (rx * 0.25)) ** 2 + ((ys - cy + ry * 0.5) / (ry * 0.15)) ** 2))
        foreground = np.array([132.0, 40.0, 26.0]) * shade[..., None] + 110 * shine[..., None]
        foreground = np.clip(foreground, 0, 255)
        background = texture_of(background_name)
    else:
        foreground = fur
        background = photo_of(background_name, 3)
    alpha = downsampled(alpha_big)
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
    fringe = np.abs(tinted - truth)[kept].mean() if kept.any() else 0.0
    return (sad, gradient, colour, fringe, *defects(alpha, truth_alpha))


def defects(alpha, truth_alpha):
    """What a person sees as wrong, apart from the edge's fine errors:
    - stray parts: regions the sticker keeps (at least 10 % opaque) that touch nothing of the
      true subject (grown by 3 px), counted and their area in pixels;
    - haze: the sticker's mean opacity (%) in the ring 3 to 12 px outside the true subject, where
      anything kept is the old background;
    - tearing: pixels under half opaque in the true subject's solid rim (fully opaque, 3 to 18 px
      inside its edge), where new background would show through the subject."""
    support = truth_alpha > 0.02
    near = ndimage.binary_dilation(support, iterations=3)
    labels, count = ndimage.label(alpha >= 0.1, structure=np.ones((3, 3)))
    touching = np.unique(labels[near])
    areas = ndimage.sum_labels(np.ones_like(alpha), labels, index=np.arange(1, count + 1))
    stray = [area for label, area in zip(range(1, count + 1), areas) if label not in touching]
    ring = ndimage.binary_dilation(support, iterations=12) & ~near
    haze = alpha[ring].mean() * 100
    solid = truth_alpha >= 0.98
    rim = ndimage.binary_erosion(solid, iterations=3) & ~ndimage.binary_erosion(solid, iterations=18)
    tearing = int(((alpha < 0.5) & rim).sum())
    return len(stray), float(sum(stray)), haze, tearing


def placed(path, x, y):
    """A sticker file put back where it was cut from, as a full-size RGBA array."""
    sticker = np.asarray(Image.open(path).convert("RGBA"))
    canvas = np.zeros((SIZE[1], SIZE[0], 4), dtype=np.uint8)
    top, left = max(0, y), max(0, x)
    bottom, right = min(SIZE[1], y + sticker.shape[0]), min(SIZE[0], x + sticker.shape[1])
    canvas[top:bottom, left:right] = sticker[top - y:bottom - y, left - x:right - x]
    return canvas


def ours(paths, flags, folder):
    """Each scene lifted by `collage sticker` in one batch (one model load): the stickers, placed
    where they lie in the scene, and each one's time from reading the photo to writing its file."""
    out = os.path.join(WORK, folder)
    command = [COLLAGE, "sticker", "--json", "--output-dir", out, *paths, *flags]
    result = subprocess.run(command, capture_output=True, check=True)
    entries = json.loads(result.stdout)
    images = [placed(entry["file"], int(entry["x"]), int(entry["y"])) for entry in entries]
    return images, [entry["milliseconds"] for entry in entries]


def rembg(paths, matting, folder):
    """Each scene through rembg as its own command does it (`rembg i`: the photo's bytes in, a
    PNG's bytes out, written to a file), so both sides' times run from file to file."""
    from rembg import new_session, remove
    session = new_session("u2netp")
    out = os.path.join(WORK, folder)
    os.makedirs(out, exist_ok=True)
    images, times = [], []
    for path in paths:
        target = os.path.join(out, os.path.basename(path))
        started = time.perf_counter()
        with open(path, "rb") as source:
            made = remove(source.read(), session=session, alpha_matting=matting)
        with open(target, "wb") as sink:
            sink.write(made)
        times.append((time.perf_counter() - started) * 1000)
        images.append(np.asarray(Image.open(target).convert("RGBA")))
    return images, times


def in_rounds(runs, rounds=ROUNDS):
    """Every method run `rounds` times, taking turns, so a slow spell of a shared machine falls
    on all of them: each method's stickers from its first round, and its time a photo the median
    over the photos (the first, which warms the model, left out) of each photo's quickest round."""
    made, times = {}, {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            images, milliseconds = run()
            made.setdefault(name, images)
            times[name].append(milliseconds)
    return {name: (made[name], statistics.median(np.min(np.array(times[name]), axis=0)[1:])) for name in runs}


def over_blue(rgba):
    a = rgba[..., 3:4].astype(np.float64) / 255
    return (a * rgba[..., :3] + (1 - a) * BLUE).astype(np.uint8)


def main():
    os.makedirs(WORK, exist_ok=True)
    scenes, paths, kinds = [], [], []
    for kind, (_, backgrounds) in KINDS.items():
        for name in backgrounds:
            index = len(paths)
            photo, alpha, foreground = scene(index, kind, name)
            path = os.path.join(WORK, f"scene-{index}.png")
            Image.fromarray(photo).save(path)
            scenes.append((alpha, foreground))
            paths.append(path)
            kinds.append(kind)
    methods = in_rounds({
        "collage sticker": lambda: ours(paths, [], "ours"),
        "collage sticker --plain-edges": lambda: ours(paths, ["--plain-edges"], "ours-plain"),
        "rembg (u2netp)": lambda: rembg(paths, False, "rembg"),
        "rembg --alpha-matting": lambda: rembg(paths, True, "rembg-matting"),
    })
    tables = {name: np.array([scores(image, alpha, foreground) for image, (alpha, foreground) in zip(images, scenes)])
              for name, (images, _) in methods.items()}
    strands = np.array([kind == "strands" for kind in kinds])
    print(f"\n{strands.sum()} scenes of {SIZE[0]} x {SIZE[1]} px: fine strands over real photos, known alpha")
    print(f"{'method':30} {'SAD':>8} {'gradient':>9} {'edge colour':>12} {'fringe':>8} {'ms/photo':>9}")
    results = {}
    for name, (images, milliseconds) in methods.items():
        sad, gradient, colour, fringe = tables[name][strands, :4].mean(axis=0)
        results[name] = (sad, gradient, colour, fringe, milliseconds)
        print(f"{name:30} {sad:8.1f} {gradient:9.2f} {colour:12.2f} {fringe:8.2f} {milliseconds:9.0f}")
    print("\nDefects on every scene (stray parts: count / area in px; haze: mean opacity % just outside "
          "the subject; tearing: px of the subject's solid rim under half opaque)")
    print(f"{'scene':14} {'method':30} {'stray':>6} {'area':>7} {'haze %':>7} {'tearing':>8} {'edge colour':>12}")
    for kind, (story, _) in KINDS.items():
        rows = np.array([k == kind for k in kinds])
        for name in methods:
            table = tables[name][rows]
            print(f"{kind:14} {name:30} {table[:, 4].sum():6.0f} {table[:, 5].sum():7.0f} {table[:, 6].mean():7.2f} "
                  f"{table[:, 7].sum():8.0f} {table[:, 2].mean():12.2f}")
    ours_scores = results["collage sticker"]
    matting = results["rembg --alpha-matting"]
    # The default sticker has clean edges (the measures keep the name they had when it was an option).
    record("matting.clean_edges_over_alpha_matting.sad", ours_scores[0] / matting[0], "error ratio")
    record("matting.clean_edges_over_alpha_matting.edge_colour", ours_scores[2] / matting[2], "error ratio")
    record("matting.clean_edges_over_alpha_matting.time", ours_scores[4] / matting[4], "time ratio")
    # The grain scenes came later (6 December): they are measured on their own, so the earlier
    # measures stay comparable with their baselines.
    grain = np.array([kind == "grain" for kind in kinds])
    defect_scenes = ~strands & ~grain
    ours_table, matting_table = tables["collage sticker"], tables["rembg --alpha-matting"]
    record("matting.default.stray_parts", ours_table[~grain, 4].sum(), "parts")
    record("matting.default_over_alpha_matting.haze",
           ours_table[defect_scenes, 6].mean() / matting_table[defect_scenes, 6].mean(), "haze ratio")
    record("matting.default_over_alpha_matting.tearing",
           (ours_table[~grain, 7].sum() + 1) / (matting_table[~grain, 7].sum() + 1), "tearing ratio")
    record("matting.grain.stray_parts", ours_table[grain, 4].sum(), "parts")
    record("matting.grain.haze_over_alpha_matting",
           ours_table[grain, 6].mean() / max(matting_table[grain, 6].mean(), 0.01), "haze ratio")
    record("matting.grain.edge_colour_over_alpha_matting",
           ours_table[grain, 2].mean() / matting_table[grain, 2].mean(), "error ratio")
    print(f"\nours / rembg --alpha-matting: SAD {ours_scores[0] / matting[0]:.2f}, gradient "
          f"{ours_scores[1] / matting[1]:.2f}, edge colour {ours_scores[2] / matting[2]:.2f}, "
          f"fringe {ours_scores[3] / matting[3]:.2f}, time {ours_scores[4] / matting[4]:.2f}")
    # A zoomed look at one edge over blue: truth, rembg with alpha matting, ours, ours cleaned.
    alpha, foreground = scenes[0]
    ys, xs = np.nonzero((alpha > 0.05) & (alpha < 0.95))
    cy, cx = int(np.median(ys)), int(xs.max()) - 40
    box = (max(0, cx - 60), max(0, cy - 45), max(0, cx - 60) + 120, max(0, cy - 45) + 90)
    truth = (alpha[..., None] * foreground + (1 - alpha[..., None]) * BLUE).astype(np.uint8)
    tiles = [truth, over_blue(methods["rembg --alpha-matting"][0][0]),
             over_blue(methods["collage sticker --plain-edges"][0][0]), over_blue(methods["collage sticker"][0][0])]
    strip = Image.new("RGB", (4 * 360 + 30, 270), (255, 255, 255))
    for index, tile in enumerate(tiles):
        crop = Image.fromarray(tile).crop(box).resize((360, 270), Image.NEAREST)
        strip.paste(crop, (index * 370, 0))
    target = os.path.join(ROOT, "docs", "images", "matting-edges.png")
    strip.save(target)
    print(f"wrote {os.path.relpath(target, ROOT)}: truth | rembg --alpha-matting | ours --plain-edges | ours")
    # Every defect scene whole, over blue: the truth, then each method, a row a scene.
    rows = [index for index, kind in enumerate(kinds) if kind != "strands"]
    tile = (320, 240)
    sheet = Image.new("RGB", ((len(methods) + 2) * (tile[0] + 10), len(rows) * (tile[1] + 10)), (255, 255, 255))
    for row, index in enumerate(rows):
        alpha, foreground = scenes[index]
        truth = (alpha[..., None] * foreground + (1 - alpha[..., None]) * BLUE).astype(np.uint8)
        pictures = [np.asarray(Image.open(paths[index])), truth] + [over_blue(images[index])
                                                                   for images, _ in methods.values()]
        for column, picture in enumerate(pictures):
            sheet.paste(Image.fromarray(picture).resize(tile, Image.LANCZOS),
                        (column * (tile[0] + 10), row * (tile[1] + 10)))
    target = os.path.join(ROOT, "docs", "images", "matting-scenes.jpg")
    sheet.save(target, quality=85)
    print(f"wrote {os.path.relpath(target, ROOT)}: photo | truth | " + " | ".join(methods))


if __name__ == "__main__":
    sys.exit(main())
