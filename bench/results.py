"""What each benchmark measured, kept for `bench/check`: one JSON line a measure in the file named
by COLLAGE_BENCH_RESULTS (default .build/bench/results.jsonl), so `make bench` can compare the
whole run with bench/baseline.json and fail when a measure is more than 25 % worse."""
import json
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DEFAULT = os.path.join(ROOT, ".build", "bench", "results.jsonl")


def record(name, value, unit, better="lower"):
    """Keeps one measure: `name` (stable, such as "render.poster.ours_over_pillow"), its value, the
    unit it is in, and whether "lower" or "higher" is better."""
    if better not in ("lower", "higher"):
        raise ValueError(f"better must be lower or higher, not {better!r}")
    path = os.environ.get("COLLAGE_BENCH_RESULTS", DEFAULT)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    entry = {"name": name, "value": float(value), "unit": unit, "better": better}
    # A benchmark run once more by `make bench` (COLLAGE_BENCH_AGAIN=1): bench/check keeps the
    # better of its two runs.
    if os.environ.get("COLLAGE_BENCH_AGAIN") == "1":
        entry["again"] = True
    with open(path, "a") as results:
        results.write(json.dumps(entry) + "\n")
