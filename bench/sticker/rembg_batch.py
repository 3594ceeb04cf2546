"""rembg with a warm model: one session, each photo timed, as a Python user would batch it."""
import json
import sys
import time

from PIL import Image
from rembg import new_session, remove

session = new_session("u2netp")
out_dir = sys.argv[1]
results = []
for path in sys.argv[2:]:
    started = time.perf_counter()
    image = Image.open(path)
    cutout = remove(image, session=session)
    cutout.save(f"{out_dir}/{path.rsplit('/', 1)[-1].rsplit('.', 1)[0]}.png")
    results.append({"photo": path, "milliseconds": (time.perf_counter() - started) * 1000})
print(json.dumps(results))
