"""The same 2 x 2 (or C x R) cover-cropped collage with Pillow, as a Python user would write it:
JPEG draft mode (Pillow's shrink-on-load) and the photos decoded on two threads."""
import sys
from concurrent.futures import ThreadPoolExecutor

from PIL import Image, ImageOps


def cell(path, width, height):
    image = Image.open(path)
    image.draft("RGB", (width, height))  # let libjpeg decode at 1/2, 1/4 or 1/8 scale
    return ImageOps.fit(image.convert("RGB"), (width, height), Image.Resampling.LANCZOS)


def main():
    out, columns, rows, width, height, gap = sys.argv[1], *map(int, sys.argv[2:7])
    photos = sys.argv[7:]
    cell_width = (width - (columns + 1) * gap) // columns
    cell_height = (height - (rows + 1) * gap) // rows
    with ThreadPoolExecutor(max_workers=2) as pool:
        cells = list(pool.map(lambda p: cell(p, cell_width, cell_height), photos))
    canvas = Image.new("RGB", (width, height), "white")
    for index, image in enumerate(cells):
        column, row = index % columns, index // columns
        canvas.paste(image, (gap + column * (cell_width + gap), gap + row * (cell_height + gap)))
    # The same encoding as collage make: baseline, quality 90, no chroma subsampling.
    canvas.save(out, quality=90, subsampling=0)


main()
