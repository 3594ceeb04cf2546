// The only collage geometry the page computes itself: what a live gesture needs before the
// server has answered (panning a crop, mapping a click into a photo, hit-testing). At rest the
// page draws the layout the server resolved. Each function mirrors a CollageCore function, and
// the browser tests check it against fixtures the Swift tests write from that function.

/** CollageCore's CropMath.sourceRect: the part of a photo, in its pixels, that fills a frame. */
export function sourceRect(image, frame, crop) {
  if (!(image.width > 0 && image.height > 0 && frame.width > 0 && frame.height > 0)) {
    return { x: 0, y: 0, width: image.width, height: image.height };
  }
  const zoom = Math.max(1, Number.isFinite(crop?.zoom) ? crop.zoom : 1);
  const focus = crop?.focus ?? { x: 0.5, y: 0.5 };
  const frameAspect = frame.width / frame.height;
  let width, height;
  if (image.width / image.height > frameAspect) { height = image.height; width = image.height * frameAspect; }
  else { width = image.width; height = image.width / frameAspect; }
  width /= zoom; height /= zoom;
  const clamp = (value, low, high) => Math.min(Math.max(value, low), Math.max(low, high));
  const x = clamp(clamp(focus.x, 0, 1) * image.width - width / 2, 0, image.width - width);
  const y = clamp(clamp(focus.y, 0, 1) * image.height - height / 2, 0, image.height - height);
  return { x, y, width, height };
}

/** Turns (x, y) about (cx, cy) by `degrees`, clockwise on screen (y grows downwards). */
export function rotate(x, y, cx, cy, degrees) {
  const r = (degrees * Math.PI) / 180;
  const dx = x - cx, dy = y - cy;
  return { x: cx + dx * Math.cos(r) - dy * Math.sin(r), y: cy + dx * Math.sin(r) + dy * Math.cos(r) };
}

/**
 * CollageCore's PhotoShape.contains: whether a point in unit coordinates of a frame is inside an
 * outline given as flat unit pairs [x0, y0, x1, y1, …] (even-odd rule, the same arithmetic).
 */
export function outlineContains(outline, point) {
  let inside = false;
  const count = outline.length / 2;
  for (let current = 0, previous = count - 1; current < count; previous = current++) {
    const ax = outline[2 * current], ay = outline[2 * current + 1];
    const bx = outline[2 * previous], by = outline[2 * previous + 1];
    if ((ay > point.y) !== (by > point.y)) {
      const crossing = (bx - ax) * (point.y - ay) / (by - ay) + ax;
      if (point.x < crossing) inside = !inside;
    }
  }
  return inside;
}

/**
 * CollageCore's CollageItem.contains: whether a canvas point is inside the turned frame and, for
 * a photo cut to a shape, inside its `outline` (the server's layout gives it).
 */
export function itemContains(item, point) {
  const f = item.frame;
  const local = rotate(point.x, point.y, f.x + f.width / 2, f.y + f.height / 2, -item.rotation);
  // Left and top edges inside, right and bottom outside, as Rect.contains: neighbours never share a point.
  const inFrame = local.x >= f.x && local.x < f.x + f.width && local.y >= f.y && local.y < f.y + f.height;
  if (!inFrame || !item.outline) return inFrame;
  return outlineContains(item.outline, { x: (local.x - f.x) / f.width, y: (local.y - f.y) / f.height });
}

/** An outline's flat unit pairs as a CSS clip-path, in percentages of the element. */
export function outlineClipPath(outline) {
  const points = [];
  for (let i = 0; i + 1 < outline.length; i += 2) points.push(`${outline[i] * 100}% ${outline[i + 1] * 100}%`);
  return `polygon(${points.join(', ')})`;
}

/** CollageCore's Collage.topmostItem: the last item in z-order under the point. */
export function topmostItem(items, point, exceptID = null) {
  for (let i = items.length - 1; i >= 0; i--) {
    if (items[i].id !== exceptID && itemContains(items[i], point)) return items[i];
  }
  return null;
}
