"""Sticker benchmark: collage sticker against rembg on the same u2netp.onnx, side by side.

Per photo with a warm model (both load the model once and process a batch), and whole process
from the command line, at the photos' own size, 1.5 MP and 12 MP. Prints medians, peak RSS
and ratios ours/rembg. Run through bench/sticker/run."""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(ROOT, ".build", "bench-sticker")
COLLAGE = os.path.join(ROOT, ".build", "release", "collage")
VENV = os.path.join(ROOT, ".build", "bench-venv", "bin")
MODEL_DIR = os.path.dirname(os.environ.get("COLLAGE_MODEL") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "collage", "models", "u2netp.onnx"))
ENV = dict(os.environ, U2NET_HOME=MODEL_DIR, OMP_NUM_THREADS=str(os.cpu_count()))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))


def run(command):
    """Seconds, peak RSS (MB) and stdout of one whole command."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    stdout = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        sys.exit(f"failed: {' '.join(command)}\n{process.stderr.read().decode()}")
    return time.perf_counter() - started, usage.ru_maxrss / 1024, stdout


def photos(label, side):
    """The sample photos with subjects, resized so the longer side is `side` (None: own size)."""
    names = ["chelsea.png", "astronaut.png", "horse.png", "coffee.png"]
    paths = []
    for name in names:
        source = os.path.join(ROOT, "samples", name)
        if side is None:
            paths.append(source)
            continue
        path = os.path.join(WORK, f"{label}-{name.rsplit('.', 1)[0]}.jpg")
        if not os.path.exists(path):
            # A side x side box keeps the aspect: the longer side becomes `side`.
            subprocess.run(["vips", "thumbnail", source, path + "[Q=92]", str(side), "--size", "both"], check=True)
        paths.append(path)
    return paths


def warm(command, key="milliseconds"):
    """Median per-photo time of a batch run, leaving out the first photo (model warm-up)."""
    _, rss, stdout = run(command)
    times = [entry[key] for entry in json.loads(stdout)][1:]
    return statistics.median(times) / 1000, rss


def compare(label, side):
    inputs = photos(label, side)
    out = os.path.join(WORK, "out")
    os.makedirs(out, exist_ok=True)
    print(f"\n{label}:")
    # Each batch repeats the photos so the warm median has several samples.
    batch = inputs * RUNS
    ours_warm, ours_batch_rss = warm([COLLAGE, "sticker", "--json", "--output-dir", out, *batch])
    rembg_warm, rembg_batch_rss = warm([os.path.join(VENV, "python"), os.path.join(HERE, "rembg_batch.py"), out, *batch])
    print(f"  per photo, warm model      ours {ours_warm * 1000:7.0f} ms   rembg {rembg_warm * 1000:7.0f} ms"
          f"   ours/rembg {ours_warm / rembg_warm:.2f}")
    ours_cli = [run([COLLAGE, "sticker", inputs[0], "-o", os.path.join(out, "ours.png")]) for _ in range(RUNS)]
    rembg_cli = [run([os.path.join(VENV, "rembg"), "i", "-m", "u2netp", inputs[0], os.path.join(out, "rembg.png")])
                 for _ in range(RUNS)]
    ours_time = statistics.median(r[0] for r in ours_cli)
    rembg_time = statistics.median(r[0] for r in rembg_cli)
    ours_rss = max(r[1] for r in ours_cli)
    rembg_rss = max(r[1] for r in rembg_cli)
    print(f"  whole command, one photo   ours {ours_time * 1000:7.0f} ms   rembg {rembg_time * 1000:7.0f} ms"
          f"   ours/rembg {ours_time / rembg_time:.2f}")
    print(f"  peak RSS (command)         ours {ours_rss:7.0f} MB   rembg {rembg_rss:7.0f} MB"
          f"   ours/rembg {ours_rss / rembg_rss:.2f}")
    print(f"  peak RSS (batch)           ours {ours_batch_rss:7.0f} MB   rembg {rembg_batch_rss:7.0f} MB")


os.makedirs(WORK, exist_ok=True)
compare("own size (0.1-0.3 MP)", None)
compare("1.5 MP (1500 px long side)", 1500)
compare("12 MP (4000 px long side)", 4000)
