// The refine brush: the selected sticker over the photo it came from, Erase and Restore strokes
// drawn with the mouse, a pen or a finger, undo, and Done, which stores the refined sticker in
// the library and shows it in the item. The brush is the server's (StickerRefinement): the
// preview runs the same arithmetic on the same pixels, so what Done stores is what was shown
// (the alpha exactly; a faint pixel's colour may differ by a few levels, as a canvas keeps
// colours premultiplied).
import { api, setStatus } from './api.js';
import { $, ask, toast } from './ui.js';

/** How unlike the stroke's colour a pixel in the brush's outer half may be and still be half affected. */
const EDGE_COLOUR_DISTANCE = 60;

/**
 * The photo around a sticker as the brush shows it: grey and dimmed, so what the sticker keeps
 * (in its own colours, at full strength) is told at a glance from what it leaves out, whatever
 * its colours. A pink tint over the rest hid a kept red rib of a leaf and a pink lighter.
 */
function dimmedGrey(photo) {
  const { width, height, data } = photo;
  const grey = new Uint8ClampedArray(data.length);
  for (let index = 0; index < data.length; index += 4) {
    // Rec. 709 luma, at 0.38 of its brightness over a dark slate (40, 44, 54).
    const luma = 0.2126 * data[index] + 0.7152 * data[index + 1] + 0.0722 * data[index + 2];
    grey[index] = 40 + 0.38 * luma;
    grey[index + 1] = 44 + 0.38 * luma;
    grey[index + 2] = 54 + 0.38 * luma;
    grey[index + 3] = 255;
  }
  return new ImageData(grey, width, height);
}

/** The photo's mean colour over the 5 × 5 pixels around a point, as the server takes it. */
function meanColour(photo, width, height, [px, py]) {
  const cx = Math.min(width - 1, Math.max(0, Math.trunc(px)));
  const cy = Math.min(height - 1, Math.max(0, Math.trunc(py)));
  const sums = [0, 0, 0];
  let count = 0;
  for (let y = Math.max(0, cy - 2); y <= Math.min(height - 1, cy + 2); y++) {
    for (let x = Math.max(0, cx - 2); x <= Math.min(width - 1, cx + 2); x++) {
      for (let channel = 0; channel < 3; channel++) sums[channel] += photo[(y * width + x) * 4 + channel];
      count += 1;
    }
  }
  return sums.map((sum) => sum / count);
}

/** 1 at 0, 0 at 1, smooth at both ends. */
function smoothFall(t) {
  const clamped = Math.min(1, Math.max(0, t));
  return 1 - clamped * clamped * (3 - 2 * clamped);
}

/** The least opacity (of 255) a person sees: fainter pixels Erase left are cleared. */
const SEEN_OPACITY = 26;
/** What the last stroke to change a pixel did to it (StickerRefinement.StrokeMark). */
const MARK_LOWERED = 1;
const MARK_FADED_FROM_SEEN = 2;
const MARK_RESTORED = 3;

/** The pieces of RGBA `pixels` at least SEEN_OPACITY opaque, eight neighbours joining. */
function pieces(pixels, width, height) {
  const piece = new Int32Array(width * height).fill(-1);
  const areas = [];
  const stack = [];
  for (let start = 0; start < width * height; start++) {
    if (piece[start] >= 0 || pixels[start * 4 + 3] < SEEN_OPACITY) continue;
    const label = areas.length;
    let area = 0;
    piece[start] = label;
    stack.push(start);
    while (stack.length) {
      const cell = stack.pop();
      area += 1;
      const y = (cell / width) | 0;
      const x = cell - y * width;
      for (let ny = Math.max(0, y - 1); ny <= Math.min(height - 1, y + 1); ny++) {
        for (let nx = Math.max(0, x - 1); nx <= Math.min(width - 1, x + 1); nx++) {
          const neighbour = ny * width + nx;
          if (piece[neighbour] >= 0 || pixels[neighbour * 4 + 3] < SEEN_OPACITY) continue;
          piece[neighbour] = label;
          stack.push(neighbour);
        }
      }
    }
    areas.push(area);
  }
  return { piece, areas };
}

/** The index of the first largest of `values`, or -1. */
function indexOfLargest(values) {
  let best = -1;
  for (let index = 0; index < values.length; index++) if (best < 0 || values[index] > values[best]) best = index;
  return best;
}

/**
 * What Erase left that nobody wants, as StickerRefinement.clearingErasedLeftovers clears it on
 * the server once every stroke is applied: pixels it faded from seen to under a tenth opaque,
 * and pieces it cut off from the largest piece of the sticker as it came (`before`), under a
 * hundredth of the largest now, holding nothing Restore raised. `marks` (a byte a pixel) says
 * what the strokes did. Returns `pixels` when there is nothing to clear, else a cleared copy.
 */
export function clearErasedLeftovers(pixels, before, width, height, marks) {
  if (!marks || !marks.some((mark) => mark === MARK_LOWERED || mark === MARK_FADED_FROM_SEEN)) return pixels;
  const result = new Uint8ClampedArray(pixels);
  for (let cell = 0; cell < width * height; cell++) {
    if (marks[cell] === MARK_FADED_FROM_SEEN && result[cell * 4 + 3] < SEEN_OPACITY) result.fill(0, cell * 4, cell * 4 + 4);
  }
  const original = pieces(before, width, height);
  const originalLargest = indexOfLargest(original.areas);
  if (originalLargest < 0) return result;
  const now = pieces(result, width, height);
  if (now.areas.length < 2) return result;
  const largest = now.areas[indexOfLargest(now.areas)];
  const count = now.areas.length;
  const [touched, wasMain, restored] = [new Uint8Array(count), new Uint8Array(count), new Uint8Array(count)];
  for (let cell = 0; cell < width * height; cell++) {
    const piece = now.piece[cell];
    if (piece < 0) continue;
    if (original.piece[cell] === originalLargest) wasMain[piece] = 1;
    if (marks[cell] === MARK_RESTORED) restored[piece] = 1;
    if (touched[piece]) continue;
    const y = (cell / width) | 0;
    const x = cell - y * width;
    for (let ny = Math.max(0, y - 1); ny <= Math.min(height - 1, y + 1); ny++) {
      for (let nx = Math.max(0, x - 1); nx <= Math.min(width - 1, x + 1); nx++) {
        const mark = marks[ny * width + nx];
        if (mark === MARK_LOWERED || mark === MARK_FADED_FROM_SEEN) touched[piece] = 1;
      }
    }
  }
  const small = Math.max(16, Math.floor(largest / 100));
  const cleared = now.areas.map((area, piece) => touched[piece] && wasMain[piece] && !restored[piece] && area < small);
  if (!cleared.includes(true)) return result;
  for (let cell = 0; cell < width * height; cell++) {
    if (now.piece[cell] >= 0 && cleared[now.piece[cell]]) result.fill(0, cell * 4, cell * 4 + 4);
  }
  return result;
}

/**
 * Applies one stroke to `pixels` (the sticker's RGBA, changed in place) with `photo` (the photo
 * under it, RGBA, the same size) as StickerRefinement.apply does on the server, noting in
 * `marks` (a byte a pixel) what it did there, for clearErasedLeftovers.
 */
export function applyStroke(stroke, pixels, photo, width, height, marks = null) {
  const radius = Math.max(0.5, stroke.size / 2);
  const hard = radius * (1 - Math.min(1, Math.max(0, stroke.softness)));
  const points = stroke.points;
  // Weights only for the stroke's own box: a stroke on a 12 MP sticker touches a corner of it.
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const boxLeft = Math.max(0, Math.floor(Math.min(...xs) - radius));
  const boxTop = Math.max(0, Math.floor(Math.min(...ys) - radius));
  const boxWidth = Math.max(0, Math.min(width - 1, Math.ceil(Math.max(...xs) + radius)) - boxLeft + 1);
  const boxHeight = Math.max(0, Math.min(height - 1, Math.ceil(Math.max(...ys) + radius)) - boxTop + 1);
  const weights = new Float32Array(boxWidth * boxHeight);
  const at = (x, y) => (y - boxTop) * boxWidth + (x - boxLeft);
  let [minX, minY, maxX, maxY] = [width, height, -1, -1];
  for (let index = 0; index < points.length; index++) {
    const [sx, sy] = points[Math.max(0, index - 1)];
    const [ex, ey] = points[index];
    const left = Math.max(0, Math.floor(Math.min(sx, ex) - radius));
    const right = Math.min(width - 1, Math.ceil(Math.max(sx, ex) + radius));
    const top = Math.max(0, Math.floor(Math.min(sy, ey) - radius));
    const bottom = Math.min(height - 1, Math.ceil(Math.max(sy, ey) + radius));
    if (left > right || top > bottom) continue;
    [minX, minY, maxX, maxY] = [Math.min(minX, left), Math.min(minY, top), Math.max(maxX, right), Math.max(maxY, bottom)];
    const [dx, dy] = [ex - sx, ey - sy];
    const lengthSquared = dx * dx + dy * dy;
    const from = meanColour(photo, width, height, points[Math.max(0, index - 1)]);
    const to = meanColour(photo, width, height, points[index]);
    for (let y = top; y <= bottom; y++) {
      for (let x = left; x <= right; x++) {
        const [px, py] = [x + 0.5, y + 0.5];
        const along = lengthSquared > 0 ? Math.min(1, Math.max(0, ((px - sx) * dx + (py - sy) * dy) / lengthSquared)) : 0;
        const [nx, ny] = [sx + along * dx, sy + along * dy];
        // As the server computes it (not Math.hypot, which may differ in the last bit).
        const distance = Math.sqrt((px - nx) * (px - nx) + (py - ny) * (py - ny));
        if (distance >= radius) continue;
        let weight = distance <= hard ? 1 : smoothFall((distance - hard) / Math.max(1e-6, radius - hard));
        if (distance > radius / 2) {
          let squared = 0;
          for (let channel = 0; channel < 3; channel++) {
            const reference = from[channel] + (to[channel] - from[channel]) * along;
            const difference = photo[(y * width + x) * 4 + channel] - reference;
            squared += difference * difference;
          }
          const alike = 1 / (1 + squared / (EDGE_COLOUR_DISTANCE * EDGE_COLOUR_DISTANCE));
          // Erase keeps from the subject what is solid: a faint leftover of the background unlike
          // the colour under the stroke goes in the outer half too (as the server computes it).
          const solid = stroke.mode === 'erase' ? pixels[(y * width + x) * 4 + 3] / 255 : 1;
          weight *= 1 - (1 - alike) * solid;
        }
        const cell = at(x, y);
        if (weight > weights[cell]) weights[cell] = weight;
      }
    }
  }
  for (let y = minY; y <= maxY; y++) {
    for (let x = minX; x <= maxX; x++) {
      const cell = y * width + x;
      const weight = weights[at(x, y)];
      if (!(weight > 0)) continue;
      const alpha = pixels[cell * 4 + 3];
      if (stroke.mode === 'erase') {
        const kept = Math.round(alpha * (1 - weight));
        pixels[cell * 4 + 3] = kept;
        if (marks && kept < alpha) marks[cell] = alpha >= SEEN_OPACITY || marks[cell] === MARK_FADED_FROM_SEEN ? MARK_FADED_FROM_SEEN : MARK_LOWERED;
        if (kept === 0) pixels[cell * 4] = pixels[cell * 4 + 1] = pixels[cell * 4 + 2] = 0;
      } else {
        const restored = alpha + (255 - alpha) * weight;
        const share = restored > 0 ? (restored - alpha) / restored : 0;
        for (let channel = 0; channel < 3; channel++) {
          const own = pixels[cell * 4 + channel];
          pixels[cell * 4 + channel] = Math.round(own + (photo[cell * 4 + channel] - own) * share);
        }
        pixels[cell * 4 + 3] = Math.round(restored);
        if (marks && Math.round(restored) > alpha) marks[cell] = MARK_RESTORED;
      }
    }
  }
}

/**
 * The frame that shows `refined` (`{width, height, offset: [x, y]}`, its top-left corner from the
 * first sticker's in the photo's pixels) where `item` showed the first sticker (`before`, its
 * `[width, height]`): the same scale, turned and flipped as the item is. A sticker is drawn
 * fitted inside its frame and centred (a frame of another shape leaves room on two sides), so
 * the map from the sticker's pixels to the frame is that fit; the new frame fits the new sticker
 * exactly, at least 20 points on its shorter side (what the document takes).
 */
export function refinedFrame(item, before, refined) {
  const { x, y, width, height } = item.frame;
  const scale = Math.min(width / before[0], height / before[1]);
  const [insetX, insetY] = [(width - before[0] * scale) / 2, (height - before[1] * scale) / 2];
  const grow = Math.max(1, 20 / (Math.min(refined.width, refined.height) * scale));
  const [newWidth, newHeight] = [refined.width * scale * grow, refined.height * scale * grow];
  const look = item.look ?? {};
  // The new box's centre from the frame's, in the item's own (unturned) frame.
  let dx = insetX + (refined.offset[0] + refined.width / 2) * scale - width / 2;
  let dy = insetY + (refined.offset[1] + refined.height / 2) * scale - height / 2;
  if (look.flipHorizontal) dx = -dx;
  if (look.flipVertical) dy = -dy;
  const turn = ((item.rotation ?? 0) * Math.PI) / 180;
  const centreX = x + width / 2 + dx * Math.cos(turn) - dy * Math.sin(turn);
  const centreY = y + height / 2 + dx * Math.sin(turn) + dy * Math.cos(turn);
  const round = (value) => Math.round(value * 1000) / 1000;
  return {
    x: round(centreX - newWidth / 2), y: round(centreY - newHeight / 2), width: round(newWidth), height: round(newHeight),
  };
}

/** Decodes an image blob into its RGBA pixels. */
async function pixelsOf(blob) {
  const bitmap = await createImageBitmap(blob, { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
  const canvas = document.createElement('canvas');
  [canvas.width, canvas.height] = [bitmap.width, bitmap.height];
  const context = canvas.getContext('2d', { willReadFrequently: true });
  context.drawImage(bitmap, 0, 0);
  bitmap.close();
  return context.getImageData(0, 0, canvas.width, canvas.height);
}

/** The point halfway between two client positions. */
function midpoint(a, b) {
  return [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
}

/** The refine dialog for the selected sticker. */
export class Refining {
  /** A view of the editor's store; `editor` names the other views it works with. */
  constructor(store, editor) {
    this.store = store;
    this.editor = editor;
    this.mode = 'erase';
    const dialog = $('refine-dialog');
    const stage = $('refine-stage');
    // A tool or zoom button clicked with the pointer hands the keys back to the picture (Space
    // then moves it, + zooms); one pressed from the keyboard keeps the focus where it is.
    const thenPicture = (event) => { if (event.detail > 0) stage.focus({ preventScroll: true }); };
    store.listen($('refine-sticker'), 'click', () => this.open());
    store.listen($('refine-item'), 'click', () => this.open());
    for (const button of dialog.querySelectorAll('[data-brush]')) {
      store.listen(button, 'click', (event) => { this.setMode(button.dataset.brush); thenPicture(event); });
    }
    store.listen($('refine-size'), 'input', () => this.showBrushValues());
    store.listen($('refine-softness'), 'input', () => this.showBrushValues());
    store.listen($('refine-undo'), 'click', (event) => { this.undo(); thenPicture(event); });
    store.listen($('refine-redo'), 'click', (event) => { this.redo(); thenPicture(event); });
    store.listen($('refine-photo'), 'click', (event) => { this.togglePhoto(); thenPicture(event); });
    store.listen($('refine-zoom-in'), 'click', (event) => { this.zoomTo(this.zoom * 2); thenPicture(event); });
    store.listen($('refine-zoom-out'), 'click', (event) => { this.zoomTo(this.zoom / 2); thenPicture(event); });
    store.listen($('refine-zoom-fit'), 'click', (event) => { this.zoomTo(1); thenPicture(event); });
    // Ctrl (or ⌘) and the wheel, which is also what a trackpad's pinch sends, zooms about the pointer.
    store.listen(stage, 'wheel', (event) => {
      if (!(event.ctrlKey || event.metaKey) || !this.original) return;
      event.preventDefault();
      this.zoomTo(this.zoom * Math.exp(-event.deltaY / 300), [event.clientX, event.clientY]);
    }, { passive: false });
    store.listen(stage, 'scroll', () => { if (!this.stroke) this.drawCursor(null); });
    store.listen($('refine-cancel'), 'click', () => this.cancel());
    store.listen($('refine-done'), 'click', () => this.finish());
    store.listen(dialog, 'cancel', (event) => { event.preventDefault(); this.cancel(); });
    store.listen(dialog, 'keydown', (event) => this.key(event));
    store.listen(dialog, 'keyup', (event) => {
      if (event.key === ' ' && this.heldMode) {
        event.preventDefault();
        this.setMode(this.heldMode);
        this.heldMode = null;
      }
    });
    // The stage hears the pointers, so a second finger on the margin around the picture pinches
    // too; strokes start on the picture only.
    store.listen(stage, 'pointerdown', (event) => this.strokeStart(event));
    // A finger's stroke or drag is no scroll for the browser to fling on: with one running
    // (touch-action alone did not stop it), the next tap on a tool only stopped the fling, and
    // Restore tapped just after a Move drag did not switch the brush.
    store.listen(stage, 'touchmove', (event) => event.preventDefault(), { passive: false });
    store.listen(stage, 'pointermove', (event) => this.strokeMove(event));
    store.listen(stage, 'pointerup', (event) => this.strokeEnd(event));
    store.listen(stage, 'pointercancel', (event) => this.strokeEnd(event));
    store.listen(stage, 'pointerleave', () => { if (!this.stroke) this.drawCursor(null); });
    // A new size of the window keeps the picture's point at the view's centre where it was.
    store.listen(window, 'resize', () => {
      if (this.original && $('refine-dialog').open) this.zoomTo(this.zoom);
    });
  }

  /** The dialog's keys: the brush modes, undo, the zoom, and Space held to move the picture. */
  key(event) {
    const mod = event.ctrlKey || event.metaKey;
    const plain = !mod && !event.altKey;
    // Ctrl+Shift+Z and Ctrl+Y redo, as in the editor.
    if (mod && (event.key.toLowerCase() === 'y' || (event.shiftKey && event.key.toLowerCase() === 'z'))) {
      event.preventDefault();
      this.redo();
    } else if (mod && event.key.toLowerCase() === 'z') { event.preventDefault(); this.undo(); }
    else if (plain && event.key === 'e') this.setMode('erase');
    else if (plain && event.key === 'r') this.setMode('restore');
    else if (plain && event.key === 'm') this.setMode('move');
    else if (plain && event.key === 'p') this.togglePhoto();
    // With Ctrl too (the browser's own zoom keys), the picture zooms and the page stays as it is.
    else if (event.key === '+' || event.key === '=') { event.preventDefault(); this.zoomTo(this.zoom * 2); }
    else if (event.key === '-' || event.key === '−') { event.preventDefault(); this.zoomTo(this.zoom / 2); }
    else if (event.key === '0') { event.preventDefault(); this.zoomTo(1); }
    else if (event.key === ' ' && !event.target?.closest?.('button')) {
      // Space held moves the picture, as in drawing programs; the brush comes back on release.
      // Not during a stroke, which would be bent into a straight line to where it ended.
      event.preventDefault();
      if (!event.repeat && !this.stroke && this.mode !== 'move') { this.heldMode = this.mode; this.setMode('move'); }
    }
  }

  /**
   * Keeps the keys in the dialog: a focused button that has just disabled itself (Fit at 100 %,
   * Undo with no stroke left) drops the focus to the page, where the dialog hears no key.
   */
  keepFocus() {
    const dialog = $('refine-dialog');
    const active = document.activeElement;
    if (dialog.open && (!active || active.disabled || !dialog.contains(active))) $('refine-stage').focus({ preventScroll: true });
  }

  /** Opens the dialog for the selected sticker item: its pixels over the photo it came from. */
  async open() {
    const item = this.store.selectedItem();
    if (!item || item.content.type !== 'sticker') return;
    this.item = item;
    this.strokes = [];
    // Strokes taken back by undo, the last first, for redo; a new stroke forgets them.
    this.undone = [];
    this.showPhoto = true;
    $('refine-photo').setAttribute('aria-pressed', 'true');
    this.stroke = null;
    this.pan = null;
    this.pinch = null;
    this.touches = new Map();
    this.heldMode = null;
    this.zoom = 1;
    this.busy = false;
    // Nothing of the last sticker shows, or takes a stroke, while this one loads.
    this.original = null;
    const canvas = $('refine-canvas');
    [canvas.width, canvas.height] = [0, 0];
    canvas.style.width = canvas.style.height = '';
    $('refine-zoom-value').textContent = '';
    const dialog = $('refine-dialog');
    $('refine-error').hidden = true;
    $('refine-done').disabled = true;
    $('refine-stage').setAttribute('aria-busy', 'true');
    this.showBrushValues();
    this.setMode('erase');
    dialog.showModal();
    $('refine-stage').focus({ preventScroll: true });
    try {
      const ref = encodeURIComponent(item.content.ref);
      const [sticker, photo] = await Promise.all([
        fetch(`/api/stickers/${ref}/image`).then((response) => {
          if (!response.ok) throw new Error(`its picture is missing (${response.status})`);
          return response.blob();
        }),
        api.stickerPhoto(item.content.ref),
      ]);
      const [stickerPixels, photoPixels] = await Promise.all([pixelsOf(sticker), pixelsOf(photo.blob)]);
      if (!dialog.open || this.item !== item) return;
      // The brush works on the photo around the sticker too (Restore can bring back what the
      // lift missed past its box): the sticker is laid where it lies in that picture.
      const { width, height } = photoPixels;
      const [atX, atY] = photo.at;
      if (atX + stickerPixels.width > width || atY + stickerPixels.height > height) {
        throw new Error('the photo under it does not match the sticker; reload the page');
      }
      const area = new ImageData(width, height);
      for (let row = 0; row < stickerPixels.height; row++) {
        const from = row * stickerPixels.width * 4;
        area.data.set(stickerPixels.data.subarray(from, from + stickerPixels.width * 4), ((row + atY) * width + atX) * 4);
      }
      this.at = [atX, atY];
      this.stickerSize = [stickerPixels.width, stickerPixels.height];
      $('refine-canvas').dataset.stickerAt = `${atX},${atY}`;
      this.original = area;
      this.photo = photoPixels;
      this.surround = dimmedGrey(photoPixels);
      this.current = new Uint8ClampedArray(area.data);
      this.marks = new Uint8Array(area.width * area.height);
      this.shown = null;
      this.layout();
      this.draw();
      $('refine-done').disabled = false;
    } catch (error) {
      this.showError(`This sticker cannot be refined: ${error.message}`);
    } finally {
      $('refine-stage').removeAttribute('aria-busy');
    }
  }

  /**
   * Sizes the canvas to the stage, keeping the sticker's shape: at a zoom of 1 the whole picture
   * fits; zoomed in, it is larger and the stage scrolls, up to 4 screen pixels a picture pixel.
   */
  layout() {
    const { width, height } = this.original;
    const stage = $('refine-stage');
    // The stage's whole box, scrollbars included: a zoomed picture's scrollbars would make the
    // fitting size smaller each time.
    const room = { width: Math.max(200, stage.offsetWidth - 16), height: Math.max(160, stage.offsetHeight - 16) };
    const fit = Math.min(room.width / width, room.height / height, 4);
    const largest = Math.max(fit, 4);
    this.zoom = Math.min(Math.max(1, this.zoom || 1), largest / fit);
    this.scale = fit * this.zoom;
    // The picture's size on screen, as other editors say it: 100 % is a picture pixel a screen
    // pixel (the fitted picture said 100 % at a fifth of a 12 MP photo's size).
    $('refine-zoom-value').textContent = `${Math.round(this.scale * 100)} %`;
    // How many times its fitted size the picture is (for the browser tests).
    $('refine-canvas').dataset.zoom = String(Math.round(this.zoom * 100) / 100);
    $('refine-zoom-in').disabled = this.zoom >= largest / fit - 1e-6;
    $('refine-zoom-out').disabled = this.zoom <= 1 + 1e-6;
    $('refine-zoom-fit').disabled = this.zoom <= 1 + 1e-6;
    const canvas = $('refine-canvas');
    if (canvas.width !== width || canvas.height !== height) [canvas.width, canvas.height] = [width, height];
    canvas.style.width = `${Math.round(width * this.scale)}px`;
    canvas.style.height = `${Math.round(height * this.scale)}px`;
    // The ring's layer covers the view, at the screen's own resolution.
    const cursor = $('refine-cursor');
    const ratio = window.devicePixelRatio || 1;
    const [viewWidth, viewHeight] = [stage.clientWidth, stage.clientHeight];
    [cursor.style.width, cursor.style.height] = [`${viewWidth}px`, `${viewHeight}px`];
    const [pixelsWide, pixelsHigh] = [Math.round(viewWidth * ratio), Math.round(viewHeight * ratio)];
    if (cursor.width !== pixelsWide || cursor.height !== pixelsHigh) [cursor.width, cursor.height] = [pixelsWide, pixelsHigh];
    this.keepFocus();
  }

  /**
   * Zooms to `zoom` times the fitting size, keeping the picture's point under `anchor` (a
   * pointer's client position; the stage's centre by default) where it was, or bringing the
   * picture's `point` (in its pixels) under it.
   */
  zoomTo(zoom, anchor, point) {
    if (!this.original) return;
    const stage = $('refine-stage');
    const canvas = $('refine-canvas');
    const before = canvas.getBoundingClientRect();
    const view = stage.getBoundingClientRect();
    const [x, y] = anchor ?? [view.left + view.width / 2, view.top + view.height / 2];
    // The picture's point to keep there: `point` when given (a pinch's, held from its start).
    const [pictureX, pictureY] = point ?? [(x - before.left) / this.scale, (y - before.top) / this.scale];
    this.zoom = zoom;
    this.layout();
    const after = canvas.getBoundingClientRect();
    stage.scrollLeft += after.left + pictureX * this.scale - x;
    stage.scrollTop += after.top + pictureY * this.scale - y;
    this.drawCursor(null);
  }

  /** The brush's width in the sticker's pixels (the slider gives it in screen pixels). */
  brushSize() {
    // Within what the server takes (a radius of 0.5 to 1,000 pixels of the sticker).
    return Math.min(2000, Math.max(1, Number($('refine-size').value) / (this.scale || 1)));
  }

  showBrushValues() {
    $('refine-size-value').textContent = `${$('refine-size').value} px`;
    $('refine-softness-value').textContent = `${$('refine-softness').value} %`;
  }

  setMode(mode) {
    // Not in the middle of a stroke: it would be bent into a straight line to where it ended.
    if (this.stroke) return;
    this.mode = mode;
    this.drawCursor(null);
    $('refine-stage').classList.toggle('moving', mode === 'move');
    for (const button of $('refine-dialog').querySelectorAll('[data-brush]')) {
      button.setAttribute('aria-pressed', String(button.dataset.brush === mode));
    }
  }

  /** Applies every stroke again from the sticker as it came (after an undo). */
  recompute() {
    const { width, height } = this.original;
    this.current = new Uint8ClampedArray(this.original.data);
    this.marks = new Uint8Array(width * height);
    for (const stroke of this.strokes) applyStroke(stroke, this.current, this.photo.data, width, height, this.marks);
    this.shown = null;
    this.draw();
  }

  /** The sticker as the strokes so far leave it, over the photo dimmed and grey. */
  draw() {
    if (!this.original) return;
    const { width, height } = this.original;
    // What Done stores: the strokes, then what Erase left behind cleared (made again only when
    // the strokes change: it walks every pixel).
    this.shown ??= clearErasedLeftovers(this.current, this.original.data, width, height, this.marks);
    const pixels = this.shown;
    const canvas = $('refine-canvas');
    const context = canvas.getContext('2d');
    // putImageData ignores globalAlpha: the photo and the sticker are drawn through a layer.
    const layer = document.createElement('canvas');
    [layer.width, layer.height] = [width, height];
    const layerContext = layer.getContext('2d');
    context.clearRect(0, 0, width, height);
    layerContext.putImageData(new ImageData(pixels, width, height), 0, 0);
    // Without the photo the sticker shows alone on the checkerboard: a faint leftover of the
    // background is then told from the photo it lies on.
    if (this.showPhoto) {
      context.putImageData(this.surround, 0, 0);
      // The kept part's edge in cyan, a screen pixel and a half wide round it (as opaque as
      // the sticker there): over the dimmed grey photo, a grey animal's fur and what the
      // sticker left out of it looked alike, and so did an erase stroke.
      const halo = document.createElement('canvas');
      [halo.width, halo.height] = [width, height];
      const haloContext = halo.getContext('2d');
      haloContext.drawImage(layer, 0, 0);
      haloContext.globalCompositeOperation = 'source-in';
      haloContext.fillStyle = '#00d2ff';
      haloContext.fillRect(0, 0, width, height);
      const reach = Math.max(1, Math.round(1.5 / (this.scale || 1)));
      for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [-1, -1], [1, -1], [-1, 1]]) {
        context.drawImage(halo, dx * reach, dy * reach);
      }
    }
    context.drawImage(layer, 0, 0);
    canvas.dataset.strokes = String(this.strokes.length);
    // The preview's own pixels, for the browser tests to hold against what Done stores.
    canvas.preview = pixels;
    $('refine-undo').disabled = this.strokes.length === 0;
    $('refine-redo').disabled = this.undone.length === 0;
    this.keepFocus();
  }

  /**
   * The point under a pointer event, in the pixels of the picture the brush works on (the
   * sticker and the photo around it): a stroke that runs off the picture is held half a brush
   * past its edge (the server takes points up to a brush past it).
   */
  pointOf(event) {
    const rect = $('refine-canvas').getBoundingClientRect();
    const { width, height } = this.original;
    const slack = this.brushSize() / 2;
    const clamp = (value, size) => Math.min(size + slack, Math.max(-slack, value));
    return [clamp((event.clientX - rect.left) / this.scale, width), clamp((event.clientY - rect.top) / this.scale, height)];
  }

  strokeStart(event) {
    if (!this.original || this.busy || event.button > 0) return;
    const onPicture = event.target === $('refine-canvas');
    if (event.pointerType !== 'touch' && !onPicture && this.mode !== 'move') return;
    event.preventDefault();
    // A pointer the browser no longer counts as down cannot be captured; the gesture goes on without.
    try { $('refine-stage').setPointerCapture(event.pointerId); } catch { /* not capturable */ }
    if (event.pointerType === 'touch') this.touches.set(event.pointerId, [event.clientX, event.clientY]);
    // A second finger turns the gesture into a pinch: the first finger's stroke so far is
    // dropped (it had not been applied), and the two zoom and move the picture.
    if (this.touches.size >= 2) {
      this.stroke = null;
      this.pan = null;
      this.drawCursor(null);
      this.startPinch();
      return;
    }
    // One stroke at a time: a pen beside a pinch, or a stroke begun off the picture, changes nothing.
    if (this.stroke || this.pan || this.pinch) return;
    if (this.mode !== 'move' && !onPicture) return;
    if (this.mode === 'move') {
      const stage = $('refine-stage');
      this.pan = { pointerId: event.pointerId, x: event.clientX, y: event.clientY, left: stage.scrollLeft, top: stage.scrollTop };
      return;
    }
    const softness = Number($('refine-softness').value) / 100;
    this.stroke = {
      mode: this.mode, size: this.brushSize(), softness, points: [this.pointOf(event)], pointerId: event.pointerId,
    };
    this.drawCursor(event);
  }

  /** Starts a pinch (or starts it again when its fingers change) from the first two fingers down. */
  startPinch() {
    const [a, b] = [...this.touches.values()];
    const middle = midpoint(a, b);
    // The picture's point between the fingers, held for the whole pinch: each step starting from
    // where the last left the scroll (rounded to a pixel) let the picture drift off the fingers.
    const picture = $('refine-canvas').getBoundingClientRect();
    const point = [(middle[0] - picture.left) / this.scale, (middle[1] - picture.top) / this.scale];
    this.pinch = { distance: Math.max(1, Math.hypot(a[0] - b[0], a[1] - b[1])), zoom: this.zoom, point };
  }

  strokeMove(event) {
    if (this.touches.has(event.pointerId)) this.touches.set(event.pointerId, [event.clientX, event.clientY]);
    if (this.pinch) {
      if (this.touches.size < 2) return;
      const [a, b] = [...this.touches.values()];
      // The picture follows the fingers' midpoint, and zooms about it by how far they spread.
      const zoom = this.pinch.zoom * Math.hypot(a[0] - b[0], a[1] - b[1]) / this.pinch.distance;
      this.zoomTo(zoom, midpoint(a, b), this.pinch.point);
      return;
    }
    if (this.pan) {
      if (event.pointerId !== this.pan.pointerId) return;
      const stage = $('refine-stage');
      stage.scrollLeft = this.pan.left - (event.clientX - this.pan.x);
      stage.scrollTop = this.pan.top - (event.clientY - this.pan.y);
      return;
    }
    if (this.stroke && event.pointerId !== this.stroke.pointerId) return;
    if (!this.stroke && this.mode === 'move') return;
    this.drawCursor(event);
    if (!this.stroke) return;
    const point = this.pointOf(event);
    const last = this.stroke.points[this.stroke.points.length - 1];
    // A point each quarter of the brush is smooth enough, and keeps long strokes small.
    if (Math.hypot(point[0] - last[0], point[1] - last[1]) >= this.stroke.size / 4) this.stroke.points.push(point);
  }

  strokeEnd(event) {
    this.touches?.delete(event.pointerId);
    if (this.pinch) {
      // The pinch ends when its fingers have all lifted: the one left does not start painting.
      // With two still down (a third finger had landed), it goes on from where they are.
      if (this.touches.size === 0) this.pinch = null;
      else if (this.touches.size >= 2) this.startPinch();
      return;
    }
    if (this.pan && event.pointerId === this.pan.pointerId) {
      this.pan = null;
      return;
    }
    if (!this.stroke || event.pointerId !== this.stroke.pointerId) return;
    const { pointerId, ...stroke } = this.stroke;
    this.stroke = null;
    if (event.type !== 'pointercancel') stroke.points.push(this.pointOf(event));
    // Rounded as they are sent, so the preview is drawn from the very numbers the server gets.
    const round = (value) => Math.round(value * 100) / 100;
    stroke.size = round(stroke.size);
    stroke.points = stroke.points.map(([x, y]) => [round(x), round(y)]);
    this.strokes.push(stroke);
    this.undone = [];
    $('refine-error').hidden = true;
    const { width, height } = this.original;
    applyStroke(stroke, this.current, this.photo.data, width, height, this.marks);
    this.shown = null;
    this.draw();
    this.drawCursor(event);
  }

  /** A ring the brush's size under the pointer, and the stroke so far, on the view's layer. */
  drawCursor(event) {
    const cursor = $('refine-cursor');
    const context = cursor.getContext('2d');
    if (!context) return;
    const ratio = cursor.width / Math.max(1, cursor.clientWidth);
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.clearRect(0, 0, cursor.width, cursor.height);
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    if (!event || !this.original || this.mode === 'move') return;
    const view = cursor.getBoundingClientRect();
    const picture = $('refine-canvas').getBoundingClientRect();
    const [pointerX, pointerY] = [event.clientX - view.left, event.clientY - view.top];
    const radius = Number($('refine-size').value) / 2;
    const colour = this.mode === 'erase' ? '#e0245e' : '#17a34a';
    if (this.stroke) {
      // The stroke so far, as a translucent band: it is applied when the pointer lifts.
      const [offsetX, offsetY] = [picture.left - view.left, picture.top - view.top];
      context.beginPath();
      for (const [x, y] of this.stroke.points) context.lineTo(offsetX + x * this.scale, offsetY + y * this.scale);
      context.lineTo(pointerX, pointerY);
      context.lineCap = 'round';
      context.lineJoin = 'round';
      context.lineWidth = this.stroke.size * this.scale;
      context.strokeStyle = this.mode === 'erase' ? 'rgba(224, 36, 94, 0.35)' : 'rgba(23, 163, 74, 0.35)';
      context.stroke();
    }
    // The brush as it works: within the solid inner ring it does exactly what is asked; out to
    // the dashed ring only on pixels of the colour under the cross (a ring of one line promised
    // its whole width, and a stroke a little off a leaf's rib left a sliver of it).
    const arm = Math.min(4, radius / 4);
    // Each line over a white one, to be seen on a photo of the brush's own colour.
    for (const [width, style] of [[3.5, 'rgba(255, 255, 255, 0.85)'], [1.5, colour]]) {
      context.lineWidth = width;
      context.strokeStyle = style;
      context.setLineDash([4, 3]);
      context.beginPath();
      context.arc(pointerX, pointerY, radius, 0, 2 * Math.PI);
      context.stroke();
      context.setLineDash([]);
      context.beginPath();
      context.arc(pointerX, pointerY, radius / 2, 0, 2 * Math.PI);
      context.moveTo(pointerX - arm, pointerY);
      context.lineTo(pointerX + arm, pointerY);
      context.moveTo(pointerX, pointerY - arm);
      context.lineTo(pointerX, pointerY + arm);
      context.stroke();
    }
  }

  undo() {
    if (!this.strokes?.length || this.busy) return;
    this.undone.push(this.strokes.pop());
    $('refine-error').hidden = true;
    this.recompute();
  }

  /** Shows or hides the photo under the sticker. */
  togglePhoto() {
    this.showPhoto = !this.showPhoto;
    $('refine-photo').setAttribute('aria-pressed', String(this.showPhoto));
    this.draw();
  }

  /** Paints again the stroke the last undo took back. */
  redo() {
    if (!this.undone?.length || this.busy) return;
    const stroke = this.undone.pop();
    this.strokes.push(stroke);
    $('refine-error').hidden = true;
    const { width, height } = this.original;
    applyStroke(stroke, this.current, this.photo.data, width, height, this.marks);
    this.shown = null;
    this.draw();
  }

  /** Closes without storing anything: strokes are only thrown away when the person says so. */
  async cancel() {
    if (this.busy) return;
    if (this.strokes?.length) {
      const count = this.strokes.length;
      const sure = await ask({
        title: 'Discard your strokes?', message: `The ${count} stroke${count === 1 ? '' : 's'} on this sticker will be lost.`,
        confirm: 'Discard', cancel: 'Keep editing', danger: true,
      });
      if (!sure) return;
    }
    this.close();
  }

  close() {
    // Done is on its way: it finishes (and closes) on its own.
    if (this.busy) return;
    this.item = null;
    this.original = null;
    this.photo = null;
    this.surround = null;
    $('refine-dialog').close();
  }

  showError(message) {
    $('refine-error').textContent = message;
    $('refine-error').hidden = false;
  }

  /** Stores the refined sticker and shows it in the item; with no strokes it only closes. */
  async finish() {
    const item = this.item;
    if (!item || !this.strokes.length) { this.close(); return; }
    $('refine-done').disabled = true;
    $('refine-cancel').disabled = true;
    this.busy = true;
    setStatus('Refining the sticker…');
    let refined;
    try {
      // The server takes points in the sticker's own pixels.
      const [atX, atY] = this.at;
      const strokes = this.strokes.map((stroke) => ({
        ...stroke, points: stroke.points.map(([x, y]) => [Math.round((x - atX) * 100) / 100, Math.round((y - atY) * 100) / 100]),
      }));
      refined = await api.refineSticker(item.content.ref, strokes);
    } catch (error) {
      this.showError(error.message);
      setStatus('The sticker was not refined');
      return;
    } finally {
      this.busy = false;
      $('refine-done').disabled = false;
      $('refine-cancel').disabled = false;
    }
    this.close();
    // The refined sticker may be larger or smaller and start elsewhere in the photo: the item is
    // moved and sized by as much, at its own scale, so the subject stays where it was. The frame
    // is worked out from the item as the saves before this one left it.
    const size = this.stickerSize;
    await this.store.commit((base) => {
      const now = base.collage.items.find((candidate) => candidate.id === item.id);
      if (!now) return [];
      return [
        { op: 'resizeItem', id: item.id, frame: refinedFrame(now, size, refined) },
        { op: 'replaceSticker', id: item.id, sticker: refined.id },
      ];
    });
    // A frame the document will not take (an item pushed off the canvas) still gets the sticker.
    const placed = this.store.doc.collage.items.find((candidate) => candidate.id === item.id);
    if (placed && placed.content.ref !== refined.id) {
      await this.store.commit([{ op: 'replaceSticker', id: item.id, sticker: refined.id }]);
    }
    // The store says so itself when the edit was refused (the item removed in another window).
    const shown = this.store.doc.collage.items.find((candidate) => candidate.id === item.id);
    if (shown?.content.ref === refined.id) {
      toast('Sticker refined', 'info', { label: 'Undo', run: () => this.store.undo() });
    }
  }
}
