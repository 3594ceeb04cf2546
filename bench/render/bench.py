"""Render benchmark: collage make against ImageMagick, Pillow and the libvips floor, side by side
in one run. Prints medians, peak RSS and ratios. Run through bench/render/run.

Every tool writes the same kind of file: baseline JPEG, quality 90, 4:4:4 chroma, standard
Huffman tables (what collage make writes at quality 90 and above; see --progressive)."""
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from results import record  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(ROOT, ".build", "bench-render")
# What `make install` and the Debian package install (bench/render/run builds it).
COLLAGE = os.path.join(ROOT, ".build", "dist", "release", "collage")
FLOOR = os.path.join(WORK, "floor")
PYTHON = os.path.join(ROOT, ".build", "bench-venv", "bin", "python")
RUNS = int(os.environ.get("BENCH_RUNS", "5"))


def measure(command):
    """Seconds and peak RSS (MB) of one run of a whole command."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        sys.exit(f"failed: {' '.join(command)}\n{process.stderr.read().decode()}")
    return elapsed, usage.ru_maxrss / 1024


def compare(commands):
    """Runs every (name, command) pair in turn, round after round, so a slow minute of a shared
    machine slows each tool alike instead of the one whose runs fell in it; prints and returns
    each one's median seconds and peak RSS, in the order given."""
    for _, command in commands:
        measure(command)  # warm the page cache and the binary
    runs = [[] for _ in commands]
    for _ in range(RUNS):
        for index, (_, command) in enumerate(commands):
            runs[index].append(measure(command))
    results = []
    for (name, _), measured in zip(commands, runs):
        seconds = statistics.median(r[0] for r in measured)
        rss = max(r[1] for r in measured)
        print(f"  {name:<34} {seconds * 1000:8.0f} ms   peak RSS {rss:6.0f} MB")
        results.append((seconds, rss))
    return results


def photos(count):
    """Generated 12 MP JPEGs: the sample photos enlarged to 4000 x 3000 with grain, so they carry
    real detail for the decoder rather than flat colour."""
    samples = ["astronaut.png", "coffee.png", "chelsea.png", "rocket.jpg", "motorcycle_left.png",
               "hubble_deep_field.jpg"]
    paths = []
    for index in range(count):
        path = os.path.join(WORK, f"photo{index}.jpg")
        if not os.path.exists(path):
            source = os.path.join(ROOT, "samples", samples[index % len(samples)])
            big = os.path.join(WORK, "big.v")
            subprocess.run(["vips", "thumbnail", source, big, "4000", "--height", "3000", "--size", "force"],
                           check=True)
            noise = os.path.join(WORK, "noise.v")
            subprocess.run(["vips", "gaussnoise", noise, "4000", "3000", "--mean", "0", "--sigma", str(6 + index)],
                           check=True)
            mixed = os.path.join(WORK, "mixed.v")
            subprocess.run(["vips", "add", big, noise, mixed], check=True)
            subprocess.run(["vips", "cast", mixed, big, "uchar"], check=True)
            subprocess.run(["vips", "jpegsave", big, path, "--Q", "92"], check=True)
        paths.append(path)
    return paths


def two_by_two(size, gap_px):
    print(f"\n2 x 2 collage, {size} x {size} px, {gap_px} px gaps, from four 12 MP JPEGs (median of {RUNS}, the tools in turn):")
    inputs = photos(4)
    points = gap_px / 3 * (1200 / size) * 3  # canvas points at the scale that gives `size` px
    out = lambda name: os.path.join(WORK, name)
    cell = (size - 3 * gap_px) // 2
    def magick_cell(path):
        return ["(", path, "-resize", f"{cell}x{cell}^", "-gravity", "center", "-extent", f"{cell}x{cell}",
                "-bordercolor", "white", "-border", str(gap_px // 2), ")"]
    ours, floor, magick, pillow = compare([
        ("collage make", [COLLAGE, "make", "--no-smart-crop", "--layout", "grid2x2", "--size", str(size), "--spacing",
                          f"{points:g}", "--padding", f"{points:g}", "--quality", "90", *inputs, "-o", out("ours.jpg")]),
        ("libvips floor (C, shrink-on-load)", [FLOOR, out("floor.jpg"), str(size), str(gap_px), *inputs]),
        ("ImageMagick (jpeg:size hint)", [
            "/usr/bin/convert", "-define", f"jpeg:size={cell * 2}x{cell * 2}",
            "(", *magick_cell(inputs[0]), *magick_cell(inputs[1]), "+append", ")",
            "(", *magick_cell(inputs[2]), *magick_cell(inputs[3]), "+append", ")",
            "-append", "-bordercolor", "white", "-border", str(gap_px // 2), "-quality", "90", "-interlace", "none",
            "-define", "jpeg:optimize-coding=false", "-sampling-factor", "1x1", out("magick.jpg")]),
        ("Pillow (draft mode, 2 threads)", [
            PYTHON, os.path.join(HERE, "pillow_collage.py"), out("pillow.jpg"), "2", "2", str(size), str(size),
            str(gap_px), *inputs]),
    ])
    record(f"render.grid{size}.ours_over_floor", ours[0] / floor[0], "time ratio")
    record(f"render.grid{size}.ours_over_imagemagick", ours[0] / magick[0], "time ratio")
    record(f"render.grid{size}.ours_over_pillow", ours[0] / pillow[0], "time ratio")
    print(f"  ratios: ours/floor {ours[0] / floor[0]:.2f}   ours/ImageMagick {ours[0] / magick[0]:.2f}"
          f"   ours/Pillow {ours[0] / pillow[0]:.2f}   (time; lower is better for us)")
    print(f"          RSS ours/floor {ours[1] / floor[1]:.2f}   ours/ImageMagick {ours[1] / magick[1]:.2f}"
          f"   ours/Pillow {ours[1] / pillow[1]:.2f}")


def poster():
    print(f"\n12-photo 3 x 4 poster, A3 at 300 DPI (3508 x 4961 px) (median of {RUNS}, the tools in turn):")
    inputs = photos(12)
    out = lambda name: os.path.join(WORK, name)
    ours, pillow = compare([
        ("collage make --print a3", [COLLAGE, "make", "--no-smart-crop", "--layout", "grid3x4", "--print",
                                     "297x420mm@300", "--spacing", "4", "--padding", "4", *inputs,
                                     "-o", out("poster.jpg")]),
        ("Pillow (draft mode, 2 threads)", [
            PYTHON, os.path.join(HERE, "pillow_collage.py"), out("poster-pillow.jpg"), "3", "4", "3508", "4961", "12",
            *inputs]),
    ])
    record("render.poster_a3.ours_over_pillow", ours[0] / pillow[0], "time ratio")
    record("render.poster_a3.rss_ours_over_pillow", ours[1] / pillow[1], "memory ratio")
    print(f"  ratio: ours/Pillow {ours[0] / pillow[0]:.2f} time, {ours[1] / pillow[1]:.2f} RSS")


def looks():
    print(f"\n2 x 2 collage, 3600 x 3600 px, with and without a filter and a gradient background "
          f"(median of {RUNS}, in turn):")
    inputs = photos(4)
    out = lambda name: os.path.join(WORK, name)
    base = [COLLAGE, "make", "--no-smart-crop", "--layout", "grid2x2", "--size", "3600", "--spacing", "12",
            "--padding", "12", "--quality", "90", *inputs]
    plain, styled = compare([
        ("collage make (white, as shot)", [*base, "-o", out("plain.jpg")]),
        ("collage make --filter film --background linear-gradient", [
            *base, "--filter", "film", "--background", "linear-gradient(135deg, #ff9a9e, #fad0c4)",
            "-o", out("styled.jpg")]),
    ])
    record("render.looks.filter_and_gradient_over_plain", styled[0] / plain[0], "time ratio")
    print(f"  ratio: with/without {styled[0] / plain[0]:.2f} time (issue 32 asks at most 1.15), "
          f"{styled[1] / plain[1]:.2f} RSS")


os.makedirs(WORK, exist_ok=True)
looks()
two_by_two(3600, 12)
two_by_two(1800, 6)
poster()
