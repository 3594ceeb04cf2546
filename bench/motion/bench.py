"""Times `collage make --animate` (a 10 s, 1,080 px, 30 fps MP4 of six photos and two stickers)
against Pillow drawing the same assembly frame by frame into PNGs and the `ffmpeg` command line
encoding them (libx264, veryfast, CRF 25, yuv420p, +faststart: the settings Collage uses at its
default quality, 80); both follow the renderer's timeline, so they draw the same moving frames; and
`collage pack --for whatsapp` with 12 stickers against `ffmpeg` making each 512 × 512 WebP.
Prints both times and their ratios. Run through bench/motion/run."""

import json
import os
import shutil
import subprocess
import sys
import time

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from results import record  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
WORK = os.path.join(ROOT, ".build", "bench-motion")
COLLAGE = os.path.join(ROOT, ".build", "release", "collage")
SAMPLES = os.path.join(ROOT, "samples")
PHOTOS = ["astronaut.png", "coffee.png", "chelsea.png", "rocket.jpg", "horse.png", "motorcycle_left.png"]
SIDE, FPS, SECONDS = 1080, 30, 10


def run(arguments):
    started = time.perf_counter()
    subprocess.run(arguments, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - started


def stickers():
    """Two stickers lifted by collage from the samples (the cat and the astronaut)."""
    made = []
    for name in ["chelsea.png", "astronaut.png"]:
        out = os.path.join(WORK, "sticker-" + name)
        if not os.path.exists(out):
            subprocess.run([COLLAGE, "sticker", os.path.join(SAMPLES, name), "-o", out], check=True,
                           stdout=subprocess.DEVNULL)
        made.append(out)
    return made


def document(sticker_files):
    """Six photos in a 3 × 2 grid with two stickers over them, on a 1,200-point square canvas."""
    items = []
    cell_w, cell_h = 1200 / 3, 1200 / 2
    for index, name in enumerate(PHOTOS):
        x, y = (index % 3) * cell_w, (index // 3) * cell_h
        items.append({"id": f"p{index}", "content": {"type": "photo", "ref": os.path.join(SAMPLES, name)},
                      "frame": {"x": x + 8, "y": y + 8, "width": cell_w - 16, "height": cell_h - 16}})
    for index, path in enumerate(sticker_files):
        items.append({"id": f"s{index}", "content": {"type": "sticker", "ref": path},
                      "frame": {"x": 150 + index * 600, "y": 420, "width": 380, "height": 380},
                      "stickerStyle": {"outline": 10, "shadow": False}})
    return {"format": "collage", "version": 1, "id": "bench", "title": "Bench", "created": "2026-12-05T12:00:00.000Z",
            "updated": "2026-12-05T12:00:00.000Z", "canvas": {"width": 1200, "height": 1200},
            "style": {"background": "#ffffff", "spacing": 0, "padding": 0, "cornerRadius": 0}, "items": items}


def ease_out_back(t, overshoot):
    u = t - 1
    return 1 + (overshoot + 1) * u * u * u + overshoot * u * u


def ease_in_out(t):
    return 3 * t * t - 2 * t * t * t


class Timeline:
    """The renderer's timeline (CollageCore's MotionTimeline), so both sides draw the same number
    of moving frames: the loop opens on the finished collage, clears it, brings the photos back
    one after another and then the stickers (paced by the length), and holds."""

    def __init__(self, items):
        order = sorted(items, key=lambda item: item["content"]["type"] != "photo")
        pace = min(1.8, max(1, SECONDS / 6))
        self.arrival, self.bounce, self.sparks = 0.6 * pace, 0.55 * pace, 1.1 * pace
        self.opening = min(0.6, SECONDS * 0.08)
        self.clearing = 0.35
        cleared = self.opening + self.clearing + 0.1
        window = min(SECONDS * 0.5, 0.35 * len(order) * pace + self.arrival)
        step = max(0, window - self.arrival) / (len(order) - 1) if len(order) > 1 else 0
        self.starts = {item["id"]: cleared + index * step for index, item in enumerate(order)}
        self.settled = min(SECONDS, max(
            self.starts[item["id"]] + (self.sparks if item["content"]["type"] == "sticker" else self.arrival)
            for item in order))

    def is_settled(self, t):
        return t < self.opening or t >= self.settled

    def state(self, item, t):
        """(opacity, scale) of `item` at `t`."""
        if t < self.opening + self.clearing:
            gone = ease_in_out((t - self.opening) / self.clearing)
            return 1 - gone, 1 - 0.03 * gone
        sticker = item["content"]["type"] == "sticker"
        progress = (t - self.starts[item["id"]]) / (self.bounce if sticker else self.arrival)
        if progress <= 0:
            return 0, 1
        if progress >= 1:
            return 1, 1
        if sticker:
            return min(1, progress / 0.2), 0.3 + 0.7 * ease_out_back(progress, 2.2)
        return min(1, progress / 0.35), 0.5 + 0.5 * ease_out_back(progress, 1.7)


def pillow_frames(doc, folder):
    """The pop-in assembly drawn with Pillow, one PNG a frame: each photo cover-cropped to its
    cell once, stickers fitted once, then every moving frame pastes them grown and faded for its
    time (the renderer's timeline), and every settled frame is the finished collage."""
    scale = SIDE / 1200
    layers = []
    for item in doc["items"]:
        f = item["frame"]
        box = (round(f["x"] * scale), round(f["y"] * scale), round(f["width"] * scale), round(f["height"] * scale))
        image = Image.open(item["content"]["ref"]).convert("RGBA")
        if item["content"]["type"] == "photo":
            ratio = max(box[2] / image.width, box[3] / image.height)
            image = image.resize((max(1, round(image.width * ratio)), max(1, round(image.height * ratio))), Image.LANCZOS)
            left, top = (image.width - box[2]) // 2, (image.height - box[3]) // 2
            image = image.crop((left, top, left + box[2], top + box[3]))
        else:
            image.thumbnail((box[2], box[3]), Image.LANCZOS)
        layers.append((item, image, box))
    timeline = Timeline(doc["items"])
    still = Image.new("RGBA", (SIDE, SIDE), (255, 255, 255, 255))
    for item, image, box in layers:
        still.paste(image, (box[0] + (box[2] - image.width) // 2, box[1] + (box[3] - image.height) // 2), image)
    for frame in range(FPS * SECONDS):
        t = frame / FPS
        if timeline.is_settled(t):
            still.save(os.path.join(folder, f"f{frame:04d}.png"), compress_level=1)
            continue
        canvas = Image.new("RGBA", (SIDE, SIDE), (255, 255, 255, 255))
        for item, image, box in layers:
            opacity, grow = timeline.state(item, t)
            if opacity <= 0.001:
                continue
            layer = image
            if abs(grow - 1) > 0.002 or opacity < 1:
                size = (max(1, round(image.width * grow)), max(1, round(image.height * grow)))
                layer = image.resize(size, Image.BILINEAR)
                alpha = layer.getchannel("A").point(lambda a, o=opacity: round(a * o))
                layer.putalpha(alpha)
            x = box[0] + (box[2] - layer.width) // 2
            y = box[1] + (box[3] - layer.height) // 2
            canvas.paste(layer, (x, y), layer)
        canvas.save(os.path.join(folder, f"f{frame:04d}.png"), compress_level=1)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    sticker_files = stickers()
    doc = document(sticker_files)
    doc_path = os.path.join(WORK, "collage.json")
    with open(doc_path, "w") as out:
        json.dump(doc, out)

    ours = run([COLLAGE, "render", doc_path, "-o", os.path.join(WORK, "ours.mp4"), "--animate",
                "--duration", str(SECONDS), "--size", str(SIDE), "--fps", str(FPS)])
    frames = os.path.join(WORK, "frames")
    os.makedirs(frames)
    started = time.perf_counter()
    pillow_frames(doc, frames)
    drawn = time.perf_counter() - started
    encoded = run(["ffmpeg", "-v", "error", "-y", "-framerate", str(FPS), "-i", os.path.join(frames, "f%04d.png"),
                   "-c:v", "libx264", "-preset", "veryfast", "-crf", "25", "-pix_fmt", "yuv420p",
                   "-movflags", "+faststart", os.path.join(WORK, "pipeline.mp4")])
    pipeline = drawn + encoded
    total = FPS * SECONDS
    timeline = Timeline(doc["items"])
    moving = sum(not timeline.is_settled(frame / FPS) for frame in range(total))
    print(f"bench/motion: a {SECONDS} s {SIDE} px {FPS} fps MP4 of 6 photos and 2 stickers "
          f"({total} frames, {moving} of them moving)")
    print(f"  collage make --animate:          {ours:6.2f} s  ({total / ours:5.1f} frames/s)")
    print(f"  Pillow frames + ffmpeg command:  {pipeline:6.2f} s  ({total / pipeline:5.1f} frames/s; "
          f"drawing {drawn:.2f} s, encoding {encoded:.2f} s)")
    print(f"  ratio (ours / pipeline): {ours / pipeline:.2f}")
    record("motion.video_10s_1080.seconds", ours, "s")
    record("motion.video_10s_1080.ours_over_pipeline", ours / pipeline, "ratio")

    pack_stickers = [sticker_files[i % 2] for i in range(12)]
    ours_pack = run([COLLAGE, "pack", "--for", "whatsapp", "-o", os.path.join(WORK, "pack")] + pack_stickers)
    started = time.perf_counter()
    for index, path in enumerate(pack_stickers):
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", path, "-vf",
                        "scale=480:480:force_original_aspect_ratio=decrease,"
                        "pad=512:512:(ow-iw)/2:(oh-ih)/2:color=0x00000000",
                        "-c:v", "libwebp", "-quality", "80", os.path.join(WORK, f"ffmpeg-{index:02d}.webp")],
                       check=True, stdout=subprocess.DEVNULL)
    ffmpeg_pack = time.perf_counter() - started
    print("bench/motion: a 12-sticker WhatsApp pack (512 × 512 WebP, ≤ 100 KB each)")
    print(f"  collage pack --for whatsapp:     {ours_pack:6.2f} s  (outlined, fitted, every file checked, tray icon, .wastickers)")
    print(f"  ffmpeg, one command a sticker:   {ffmpeg_pack:6.2f} s  (scaled and padded only)")
    print(f"  ratio (ours / ffmpeg): {ours_pack / ffmpeg_pack:.2f}")
    record("motion.pack_12_whatsapp.seconds", ours_pack, "s")
    record("motion.pack_12_whatsapp.ours_over_ffmpeg", ours_pack / ffmpeg_pack, "ratio")


if __name__ == "__main__":
    main()
