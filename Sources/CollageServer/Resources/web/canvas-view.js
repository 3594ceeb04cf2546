// Drawing the collage: the layout the server resolved, clipped to the canvas as the export is,
// the selection above it, and stickers with the renderer's own pixels.
import { api } from './api.js';
import { parseBackground, standInColour } from './background.js';
import { outlineClipPath, rotate, sourceRect } from './geometry.js';
import { textCSS } from './text.js';
import { $ } from './ui.js';

const measuring = document.createElement('canvas').getContext('2d');
/** What a phone on its side keeps free at the stage's right edge: the tools' two columns and a gap. */
const TOOL_COLUMN = 150;
/** What a phone on its side keeps under the canvas: room for the turn handle below an item. */
const LYING_FOOT = 36;

/** The width, in points, of a text's longest line as the browser's fonts set it (for hit-testing). */
function wordsWidth(block) {
  measuring.font = `${block.italic ? 'italic ' : ''}${block.weight ?? 400} ${block.size}px "${block.font}", sans-serif`;
  const spacing = (block.letterSpacing ?? 0) * block.size;
  return Math.max(...block.text.split('\n').map((line) => measuring.measureText(line).width + spacing * [...line].length), 1);
}

/**
 * Where a drawing is opaque, for hit-testing: its alpha reduced to at most 256 pixels a side
 * (enough to tell a sticker's body from its clear corners, and small beside the drawing).
 */
function opacityMap(bitmap) {
  const k = Math.min(1, 256 / Math.max(bitmap.width, bitmap.height, 1));
  const width = Math.max(1, Math.round(bitmap.width * k)), height = Math.max(1, Math.round(bitmap.height * k));
  const context = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true });
  context.drawImage(bitmap, 0, 0, width, height);
  const rgba = context.getImageData(0, 0, width, height).data;
  const alpha = new Uint8Array(width * height);
  for (let i = 0; i < alpha.length; i++) alpha[i] = rgba[4 * i + 3];
  return { width, height, alpha };
}

/** The canvas: draws the collage from the store, exactly as the renderer lays it out. */
export class CanvasView {
  /** A view of the editor's store; `editor` names the other views it works with. */
  constructor(store, editor) {
    this.store = store;
    this.editor = editor;
    /** Styled sticker images: by look, the one each item shows, and the requests under way. */
    this.stickerPixels = { drawn: new Map(), latest: new Map(), pending: new Map() };
  }

  /** Lets go of the drawn stickers' and background's images. */
  close() {
    if (this.backgroundPixels?.url) URL.revokeObjectURL(this.backgroundPixels.url);
    this.backgroundPixels = null;
    for (const drawn of this.stickerPixels.drawn.values()) URL.revokeObjectURL(drawn.url);
    this.stickerPixels.drawn.clear();
    this.stickerPixels.latest.clear();
  }

  /** Canvas points to CSS pixels: the canvas fills the stage, with room for the handles. */
  scale() {
    const stage = $('stage');
    // A phone's canvas spans its width, with just room for a finger at the edges; a narrow
    // stage (a tablet beside the panel) keeps room for the handles and no more.
    const lying = this.editor.panels.isLying();
    const margin = this.editor.panels.isPhone() || lying ? 12 : stage.clientWidth < 700 ? 32 : 56;
    // Above and below, an upright tablet's stage (the panel under it) keeps room for the item
    // tools over an item at the canvas's top (52 px with their words under a finger, and their
    // gap) and the turn handle under one at its foot: there they covered the photo and handles.
    const stacked = window.matchMedia('(min-width: 701px) and (max-width: 1100px) and (orientation: portrait)').matches;
    // A short window (a laptop's browser with its tools docked below) keeps less above and below:
    // at 56 px a square collage was smaller there than on a phone on its side.
    const upright = this.editor.panels.isPhone() || lying ? 12
      : stage.clientWidth < 700 || stage.clientHeight < 420 ? 32 : stacked ? 72 : 56;
    // A phone on its side keeps the stage's right edge for the tools' column.
    const width = Math.max(120, stage.clientWidth - 2 * margin - (lying ? TOOL_COLUMN : 0));
    // A phone keeps the foot of the stage for the selected item's tools, in a row 64 px high;
    // one on its side keeps it for the turn handle under a photo of the bottom row (30 px below
    // it: with 12 px it lay past the screen's edge, out of reach).
    const foot = this.editor.panels.isPhone() ? 84 : lying ? LYING_FOOT - upright : 0;
    const height = Math.max(120, stage.clientHeight - 2 * upright - foot);
    const fit = Math.min(width / this.store.collage.canvas.width, height / this.store.collage.canvas.height);
    // A whole number of pixels along the long side, so the canvas's edges fall on pixels.
    const long = Math.max(this.store.collage.canvas.width, this.store.collage.canvas.height);
    return Math.max(1, Math.floor(long * fit)) / long;
  }

  render() {
    if (this.store.closed) return;
    const canvas = $('canvas');
    // Redrawing replaces the items' elements: the one that had the keyboard gets it back.
    const focused = document.activeElement?.closest?.('#canvas .item')?.dataset.id;
    const collage = this.store.collage;
    const scale = this.scale();
    this.viewScale = scale;
    canvas.style.width = `${collage.canvas.width * scale}px`;
    canvas.style.height = `${collage.canvas.height * scale}px`;
    this.centreCanvas();
    this.drawBackground(canvas, collage, scale);
    // Two layers: the collage, clipped to the canvas exactly as the export is, and above it the
    // selection (outline and handles), which is never clipped and always wins the pointer.
    const content = document.createElement('div');
    content.className = 'content';
    const children = [];
    const filled = new Set(collage.items.map((item) => item.slot).filter((slot) => slot !== undefined));
    // An empty slot is a drop target with a "+" that opens the photo tray for it. It is the
    // editor's, not the collage's: the export leaves the slot as background.
    (this.store.doc.layout?.slots ?? []).forEach((frame, index) => {
      if (filled.has(index)) return;
      const slot = document.createElement('div');
      slot.className = 'slot-empty';
      slot.dataset.slot = String(index);
      Object.assign(slot.style, {
        left: `${frame.x * scale}px`, top: `${frame.y * scale}px`,
        width: `${frame.width * scale}px`, height: `${frame.height * scale}px`,
      });
      const add = document.createElement('button');
      add.type = 'button';
      add.textContent = '+';
      add.setAttribute('aria-label', `Add a photo to frame ${index + 1}`);
      add.addEventListener('click', () => this.editor.panels.setTrayTarget({ slot: index }, `Choose a photo for frame ${index + 1}`));
      if (frame.width * scale < 56 || frame.height * scale < 56) add.style.transform = 'scale(0.6)';
      slot.append(add);
      children.push(slot);
    });
    // Which photos are too small for the export size, worked out once a drawing.
    const sizing = this.editor.dialogs.exportSizing ?? { scale: 3, dpi: null };
    this.softNow = new Map(this.softPhotos(sizing.scale, sizing.dpi).map((entry) => [entry.id, entry]));
    collage.items.forEach((item, index) => children.push(this.drawItem(item, index, scale)));
    content.replaceChildren(...children);
    const overlay = document.createElement('div');
    overlay.className = 'overlay';
    canvas.replaceChildren(content, overlay);
    if (focused) canvas.querySelector(`.item[data-id="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
    this.drawSelection();
    this.editor.toolbar.updateToolbar();
    this.editor.text.placeTextEditor();
    document.title = `${collage.title} — Collage`;
  }

  /**
   * The canvas's background. A colour is CSS's own; a gradient, pattern or paper is shown with
   * the renderer's pixels (fetched at the screen's resolution), over a CSS stand-in until they
   * come: the gradient itself (CSS means the same by it), or the paper's colour.
   */
  drawBackground(canvas, collage, scale) {
    const background = collage.style.background;
    const fill = parseBackground(background);
    const colour = fill.kind === 'colour';
    const transparent = colour && background.length === 9 && background.endsWith('00');
    canvas.classList.toggle('transparent', transparent);
    if (colour) {
      Object.assign(canvas.style, { backgroundColor: transparent ? 'transparent' : background, backgroundImage: '' });
      canvas.dataset.background = background;
      return;
    }
    const pixels = Math.round(scale * (window.devicePixelRatio || 1) * 1000) / 1000;
    // A photo background is cut around its subject, which may be found after the upload.
    const focus = fill.kind === 'photo' ? JSON.stringify(this.store.doc.media[fill.ref]?.focus ?? null) : '';
    const key = `${background}|${collage.canvas.width}x${collage.canvas.height}|${pixels}|${focus}`;
    const drawn = this.backgroundPixels;
    if (drawn?.key === key && drawn.url) {
      Object.assign(canvas.style, { backgroundImage: `url("${drawn.url}")`, backgroundSize: '100% 100%' });
      canvas.dataset.background = background;
      return;
    }
    const gradient = fill.kind === 'gradient';
    Object.assign(canvas.style, {
      backgroundColor: standInColour(background), backgroundImage: gradient ? background : '', backgroundSize: '100% 100%',
    });
    // Which background the canvas shows with the renderer's pixels (tests wait for it).
    delete canvas.dataset.background;
    if (drawn?.pending === key) return;
    this.backgroundPixels = { ...(drawn ?? {}), pending: key };
    const settle = () => { if (this.backgroundPixels?.pending === key) this.backgroundPixels = { ...this.backgroundPixels, pending: null }; };
    api.drawnBackground(this.store.id, { scale: pixels, v: key }).then(async (response) => {
      if (!response.ok || this.store.closed) { settle(); return; }
      const blob = await response.blob();
      // A newer background (or size) asked for since: this one is not shown.
      if (this.backgroundPixels?.pending !== key) return;
      const url = URL.createObjectURL(blob);
      if (this.backgroundPixels?.url) URL.revokeObjectURL(this.backgroundPixels.url);
      this.backgroundPixels = { key, url };
      // Only if the canvas still shows this background (a newer choice may be on its way).
      if (this.store.collage.style.background === background) {
        Object.assign(canvas.style, { backgroundImage: `url("${url}")`, backgroundSize: '100% 100%' });
        canvas.dataset.background = background;
      }
    }).catch(settle);
  }

  /**
   * Centres the canvas in the stage on whole device pixels: a canvas that starts half a pixel
   * in is resampled by the browser, and the photos look softer than the export they preview.
   */
  centreCanvas() {
    const canvas = $('canvas');
    const stage = $('stage');
    const width = parseFloat(canvas.style.width), height = parseFloat(canvas.style.height);
    // On a phone the canvas sits under the top bar, where the eye starts, not centred in grey.
    const lying = this.editor.panels.isLying();
    let left = Math.floor((stage.clientWidth - (lying ? TOOL_COLUMN : 0) - width) / 2);
    let top = this.editor.panels.isPhone() ? 12 : Math.floor((stage.clientHeight - height) / 2);
    // On its side, a phone keeps its foot free for the turn handle (see scale).
    if (lying) top = Math.max(12, Math.min(top, stage.clientHeight - LYING_FOOT - height));
    canvas.style.left = `${left}px`;
    canvas.style.top = `${top}px`;
    const box = canvas.getBoundingClientRect();
    const ratio = window.devicePixelRatio || 1;
    left -= box.left - Math.round(box.left * ratio) / ratio;
    top -= box.top - Math.round(box.top * ratio) / ratio;
    canvas.style.left = `${left}px`;
    canvas.style.top = `${top}px`;
  }

  /** The selected item's outline and handles, in the overlay, framed as the item is drawn. */
  drawSelection(frame, rotation) {
    if (this.store.closed) return;
    const overlay = $('canvas').querySelector('.overlay');
    if (!overlay) return;
    const item = this.store.selectedItem();
    this.editor.toolbar.placeItemTools(frame, rotation);
    if (!item) { overlay.replaceChildren(); return; }
    const f = frame ?? item.frame;
    const scale = this.viewScale;
    const box = document.createElement('div');
    box.className = 'selection';
    box.dataset.id = item.id;
    const resize = document.createElement('div');
    resize.className = 'handle resize';
    resize.setAttribute('aria-hidden', 'true');
    const rotateHandle = document.createElement('div');
    rotateHandle.className = 'handle rotate';
    rotateHandle.setAttribute('aria-hidden', 'true');
    box.append(resize, rotateHandle);
    Object.assign(box.style, {
      left: `${f.x * scale}px`, top: `${f.y * scale}px`, width: `${f.width * scale}px`, height: `${f.height * scale}px`,
      transform: `rotate(${rotation ?? item.rotation}deg)`,
    });
    overlay.replaceChildren(box);
  }

  drawItem(item, index, scale, frame = item.frame, rotation = item.rotation, crop = item.crop) {
    const media = this.store.doc.media[item.content.ref];
    const element = document.createElement('div');
    const lifting = this.store.liftMode && item.id === this.store.selected;
    element.className = `item ${item.content.type}${item.id === this.store.selected ? ' selected' : ''}${lifting ? ' lift-target' : ''}`;
    element.dataset.id = item.id;
    element.tabIndex = 0;
    element.setAttribute('role', 'img');
    const kind = item.content.type === 'text' ? `text "${item.content.text.slice(0, 60)}"` : item.content.type;
    element.setAttribute('aria-label', `${kind}, ${index + 1} of ${this.store.collage.items.length}`);
    const clip = document.createElement('div');
    clip.className = 'clip';
    const image = document.createElement('img');
    image.alt = '';
    image.draggable = false;
    // In its clip from the start: a drawing already at hand is placed at once, and marks the clip.
    clip.append(image);
    if (item.content.type === 'text') {
      if (this.editor.text.textEditing?.id === item.id && !this.editor.text.textEditing.editor.classList.contains('resting')) {
        element.classList.add('typing');
      }
      this.drawText(item, image, clip, frame, scale);
    } else if (media) {
      image.src = media.preview;
      const box = { width: frame.width * scale, height: frame.height * scale };
      if (item.content.type === 'photo') {
        // At rest, the rectangle the server resolved; mid-gesture, the same math run here.
        const resolved = this.layoutOf(item);
        const atRest = frame === item.frame && crop === item.crop && resolved?.source;
        const size = atRest ? resolved.imageSize : media;
        const source = atRest
          ? resolved.source
          : sourceRect(media, frame, crop ?? (media.focus ? { focus: media.focus, zoom: 1 } : null));
        const k = box.width / source.width;
        Object.assign(image.style, {
          width: `${size.width * k}px`, height: `${size.height * k}px`,
          left: `${-source.x * k}px`, top: `${-source.y * k}px`,
        });
        const look = item.look ?? {};
        const cornerRadius = this.store.collage.style.cornerRadius;
        // Until the renderer's pixels come (and while the crop is panned), the plain preview
        // stands in: the collage's corners, the mirror, the shape's outline.
        clip.style.borderRadius = `${cornerRadius * scale}px`;
        if (look.flipHorizontal || look.flipVertical) {
          clip.style.transform = `scale(${look.flipHorizontal ? -1 : 1}, ${look.flipVertical ? -1 : 1})`;
        }
        const outline = resolved?.outline;
        if (outline) {
          // Clicks land only inside the shape, as CollageCore's hit-testing has it.
          element.classList.add('shaped');
          const hit = document.createElement('div');
          hit.className = 'hit';
          hit.style.clipPath = outlineClipPath(outline);
          element.append(hit);
          // The clip is mirrored with the photo; its outline is mirrored first, so the shape stays
          // as the export cuts it (after the flip).
          const mirrored = outline.map((value, index) =>
            ((index % 2 === 0 && look.flipHorizontal) || (index % 2 === 1 && look.flipVertical) ? 1 - value : value));
          if (!look.border || look.border.style !== 'polaroid') clip.style.clipPath = outlineClipPath(mirrored);
        }
        if (look.border?.style === 'polaroid') {
          // The card's margins, so the photo does not flash whole while its drawing comes.
          const side = Math.min(look.border.width, frame.width / 4, frame.height / 4) * scale;
          const bottom = Math.min(side * 3.5, (frame.height * scale) / 2);
          clip.style.clipPath = `inset(${side}px ${side}px ${bottom}px ${side}px)`;
        }
        // A photo with a filter, adjustments, a shape, a border or a shadow is shown with the
        // renderer's pixels (cut and drawn as the export makes it), stretched while a gesture
        // moves or resizes it; panning its crop shows the plain preview, which follows the finger.
        // A collage only shown (a layout tried, a style slider moving) is not the stored one the
        // server would draw: its photos keep their stand-ins.
        const framed = (look.shape && look.shape !== 'rectangle') || look.border || look.shadow;
        const shownOnly = this.store.previewing || this.store.showingOnce;
        if ((look.filter || look.adjustments || framed) && crop === item.crop && resolved?.source && !shownOnly) {
          // Opacity is the element's (CSS), not the drawing's.
          const { opacity: _opacity, ...drawnLook } = look;
          const key = JSON.stringify([item.content.ref, resolved.source, drawnLook, item.frame.width, item.frame.height,
            cornerRadius]);
          this.drawRendered(item, image, frame, key, () => {});
        }
      } else {
        this.drawSticker(item, image, frame, box, media);
      }
    }
    clip.append(image);
    element.append(clip);
    const sizing = this.editor.dialogs.exportSizing ?? { scale: 3, dpi: null };
    const soft = item.content.type === 'photo' && frame === item.frame && this.softNow?.get(item.id);
    if (soft) {
      // As print services mark them: this photo will look soft at the export size.
      const badge = document.createElement('span');
      badge.className = 'low-res-badge';
      // On a photo drawn small (a phone's collage), a smaller mark: the full one covered much
      // of each photo.
      badge.classList.toggle('small', Math.min(frame.width, frame.height) * scale < 140);
      badge.textContent = 'Low res';
      badge.title = sizing.dpi
        ? `This photo is small for its frame: printed at ${Math.round(soft.quality)} dpi`
        : `This photo is small for its frame: enlarged ${Math.round(10 / soft.quality) / 10}× at the export size`;
      element.append(badge);
    }
    Object.assign(element.style, {
      left: `${frame.x * scale}px`, top: `${frame.y * scale}px`,
      width: `${frame.width * scale}px`, height: `${frame.height * scale}px`,
      transform: `rotate(${rotation}deg)`, zIndex: String(index + 1),
    });
    // The whole item at once, outline and shadow with it: the renderer fades the item's layer.
    const opacity = item.look?.opacity ?? 1;
    if (opacity < 1) element.style.opacity = String(opacity);
    return element;
  }

  /**
   * A text is shown with the renderer's own pixels, as a sticker is. Until they arrive it is
   * written in the browser's fonts, in its look, so a new text never shows as nothing.
   */
  drawText(item, image, clip, frame, scale) {
    // Only the words take the pointer: a click beside a short caption, in its wide frame, reaches
    // the photo below. (Once selected, the selection box moves it from anywhere in its frame.)
    const hit = document.createElement('div');
    hit.className = 'words';
    const words = wordsWidth(item.content) * scale;
    const inset = (item.content.background?.padding ?? 0) * scale;
    const width = Math.min(frame.width * scale, words + 2 * inset);
    const room = frame.width * scale - width;
    const left = { left: 0, center: room / 2, right: room }[item.content.align ?? 'center'] ?? room / 2;
    Object.assign(hit.style, { left: `${left}px`, width: `${width}px` });
    clip.append(hit);
    const placeholder = () => {
      const words = document.createElement('div');
      words.className = 'text-fallback';
      words.textContent = item.content.text;
      Object.assign(words.style, textCSS(item.content, scale));
      clip.append(words);
      return () => words.remove();
    };
    // While a gesture changes the frame's width, the words re-wrap live in the browser's fonts
    // (stretching the last drawing would squash them); the renderer's come back on release.
    if (frame !== item.frame && frame.width !== item.frame.width) { placeholder(); return; }
    const key = [JSON.stringify(item.content), item.frame.width, item.frame.height].join('|');
    this.drawRendered(item, image, frame, key, placeholder, () => this.editor.text.textDrawn?.(item));
  }

  /**
   * A sticker is shown with the renderer's own pixels (its outline and shadow exactly as the
   * export draws them), fetched at the screen's resolution for the frame's size. Until they
   * arrive, and while a gesture changes the frame, the last pixels drawn for it are stretched
   * to the frame, or the plain sticker is fitted in it.
   */
  drawSticker(item, image, frame, box, media) {
    const style = item.stickerStyle ?? {};
    const look = item.look ?? {};
    // The renderer's drawing generation (from the session) leads the key, so a browser's cached
    // drawing of an older look is not shown.
    const key = [
      this.store.app.drawingGeneration ?? '', item.content.ref, style.outline ?? 0, !!style.shadow, style.effect ?? '', !!look.flipHorizontal, !!look.flipVertical,
      item.frame.width, item.frame.height,
    ].join('|');
    this.drawRendered(item, image, frame, key, () => {
      const k = Math.min(box.width / media.width, box.height / media.height);
      Object.assign(image.style, {
        width: `${media.width * k}px`, height: `${media.height * k}px`,
        left: `${(box.width - media.width * k) / 2}px`, top: `${(box.height - media.height * k) / 2}px`,
      });
    });
  }

  /**
   * Shows the renderer's drawing of an item (`key` names its look), fetched at
   * the screen's resolution; the last drawing of the item, stretched to a frame a gesture is
   * changing, or else `placeholder`, shows until it comes.
   */
  /** Drawn pixels per canvas point for the screen: the view's scale on the device's pixels. */
  drawingPixels() {
    return Math.round(this.viewScale * (window.devicePixelRatio || 1) * 1000) / 1000;
  }

  /** Shows a drawing of an item (see fetchDrawn) in its `image`, stretched to `frame`. */
  placeDrawing(image, drawn, frame) {
    // The drawing is whole (mirrored, cut, shadowed): the stand-ins' clipping and mirror go.
    image.parentElement?.classList.add('drawn');
    // CSS pixels per pixel of the drawn image, stretched if the frame changed since.
    const kx = (this.viewScale / drawn.scale) * (frame.width / drawn.frame.width);
    const ky = (this.viewScale / drawn.scale) * (frame.height / drawn.frame.height);
    image.src = drawn.url;
    // Which look the picture shows (tests wait for a new look's drawing to arrive).
    image.dataset.look = drawn.look ?? '';
    Object.assign(image.style, {
      width: `${drawn.width * kx}px`, height: `${drawn.height * ky}px`,
      left: `${drawn.offsetX * kx}px`, top: `${drawn.offsetY * ky}px`,
    });
  }

  drawRendered(item, image, frame, look, placeholder, drawnCallback = () => {}) {
    let clearPlaceholder = () => {};
    const place = (drawn) => {
      clearPlaceholder();
      this.placeDrawing(image, drawn, frame);
    };
    const pixels = this.drawingPixels();
    const key = `${look}|${pixels}`;
    const cache = this.stickerPixels;
    const latest = cache.latest.get(item.id);
    // A text's last drawing shows other words: while new ones are on their way, the placeholder.
    // A sticker's last drawing, stretched, stands in well; a text's or photo's shows other words
    // or colours, and so does another sticker's (a refined one's frame is another shape: the old
    // drawing flashed stretched into it), for which the plain new sticker stands in.
    const sameSticker = item.content.type === 'sticker' && latest?.ref === item.content.ref;
    if (latest && (sameSticker || latest.look === look)) place(latest);
    else clearPlaceholder = placeholder() ?? clearPlaceholder;
    if (frame !== item.frame) return;
    const known = cache.drawn.get(key);
    if (known) { place(known); cache.latest.set(item.id, known); drawnCallback(); return; }
    // One request per look of an item, however often the canvas is redrawn meanwhile.
    if (!cache.pending.has(key)) {
      cache.pending.set(key, this.fetchDrawn(item, pixels, key).then((drawn) => {
        cache.pending.delete(key);
        if (!drawn || this.store.closed) { if (drawn) URL.revokeObjectURL(drawn.url); return null; }
        drawn.look = look;
        drawn.ref = item.content.ref;
        cache.drawn.set(key, drawn);
        this.evictStickerPixels();
        return drawn;
      }));
    }
    cache.pending.get(key).then((drawn) => {
      if (!drawn || this.store.closed || !image.isConnected) return;
      cache.latest.set(item.id, drawn);
      place(drawn);
      drawnCallback();
    });
  }

  /**
   * The drawn item's pixels and where they sit, or `null` when the server said no. The address
   * names the look drawn (`key`), not only the document's version: a photo's crop can change
   * without a new version (its subject found after the upload), and the browser's cache must
   * not answer with the drawing of the old crop. `extra` joins the address's parameters (the
   * outline slider's width).
   */
  async fetchDrawn(item, pixels, key, extra = {}) {
    try {
      const v = `${this.store.doc.version}.${textHash(key)}`;
      const response = await api.drawnItem(this.store.id, item.id, { scale: pixels, v, ...extra });
      if (!response.ok) return null;
      const [offsetX, offsetY] = (response.headers.get('X-Collage-Offset') ?? '0,0').split(',').map(Number);
      const blob = await response.blob();
      const bitmap = await createImageBitmap(blob);
      const drawn = {
        url: URL.createObjectURL(blob), offsetX, offsetY, width: bitmap.width, height: bitmap.height,
        scale: Number(response.headers.get('X-Collage-Scale') ?? pixels), frame: { ...item.frame },
        opacity: item.content.type === 'sticker' ? opacityMap(bitmap) : null,
      };
      bitmap.close();
      return drawn;
    } catch {
      return null;
    }
  }

  /**
   * Shows `item`, a sticker, drawn by the renderer with an outline `width` points wide in place
   * of its own, until the canvas is drawn again; `stillWanted()` says whether the drawing is
   * still wanted when it comes (the slider let go meanwhile: the saved one is drawn instead).
   */
  async showStickerWithOutline(item, width, stillWanted) {
    const look = `outline ${width}`;
    const drawn = await this.fetchDrawn(item, this.drawingPixels(), look, { outline: width });
    const image = $('canvas').querySelector(`.item[data-id="${CSS.escape(item.id)}"] img`);
    if (!drawn || !image || !stillWanted() || this.store.closed) {
      if (drawn) URL.revokeObjectURL(drawn.url);
      return;
    }
    if (this.outlinePreviewURL) URL.revokeObjectURL(this.outlinePreviewURL);
    this.outlinePreviewURL = drawn.url;
    this.placeDrawing(image, { ...drawn, look }, item.frame);
  }

  /**
   * Whether a canvas point inside a sticker's frame falls where its drawing (outline and shadow
   * included) is clear, or inside a text's frame beside its words, so a press there reaches what
   * lies below it, as the eye does: a photo seen past the sticker's body is the photo's. Within 6
   * screen pixels of a drawn pixel is still the sticker, so a thin part stays easy to take hold
   * of; until its drawing has arrived, the whole frame is the sticker's.
   */
  seesThrough(item, point) {
    // A text takes the pointer only at its words (a click beside a short caption, in its wide
    // frame, is for what lies below), the same through a sticker above it.
    if (item.content.type === 'text') {
      const words = $('canvas').querySelector(`.item[data-id="${CSS.escape(item.id)}"] .words`);
      if (!words) return false;
      const box = $('canvas').getBoundingClientRect();
      return !document.elementsFromPoint(box.left + point.x * this.viewScale, box.top + point.y * this.viewScale).includes(words);
    }
    if (item.content.type !== 'sticker') return false;
    const drawn = this.stickerPixels.latest.get(item.id);
    const map = drawn?.opacity;
    if (!map || !(item.frame.width > 0 && item.frame.height > 0)) return false;
    const f = item.frame;
    const local = rotate(point.x, point.y, f.x + f.width / 2, f.y + f.height / 2, -item.rotation);
    // Drawn pixels per point, as the drawing is stretched to the frame.
    const kx = (drawn.scale * drawn.frame.width) / f.width, ky = (drawn.scale * drawn.frame.height) / f.height;
    const reach = 6 / this.viewScale;
    const diagonal = reach * Math.SQRT1_2;
    const around = [[0, 0], [reach, 0], [-reach, 0], [0, reach], [0, -reach],
      [diagonal, diagonal], [-diagonal, diagonal], [diagonal, -diagonal], [-diagonal, -diagonal]];
    for (const [dx, dy] of around) {
      const x = ((local.x - f.x + dx) * kx - drawn.offsetX) * (map.width / drawn.width);
      const y = ((local.y - f.y + dy) * ky - drawn.offsetY) * (map.height / drawn.height);
      const column = Math.floor(x), row = Math.floor(y);
      if (column < 0 || row < 0 || column >= map.width || row >= map.height) continue;
      // A tenth opaque: the faintest haze of an edge is not the sticker.
      if (map.alpha[row * map.width + column] >= 26) return false;
    }
    return true;
  }

  /** Keeps the newest styled stickers; an image no item still shows is released. */
  evictStickerPixels() {
    const cache = this.stickerPixels;
    while (cache.drawn.size > 64) {
      const [oldest, drawn] = cache.drawn.entries().next().value;
      cache.drawn.delete(oldest);
      if (![...cache.latest.values()].includes(drawn)) URL.revokeObjectURL(drawn.url);
    }
  }

  /** What the server resolved for an item (its crop rectangle in the photo's pixels, …). */
  layoutOf(item) {
    return this.store.doc.layout?.items?.find((entry) => entry.id === item.id) ?? null;
  }

  /**
   * The photos too small for their frames at `scale` output pixels per point: each with its
   * `quality`, the dpi it prints at (for a print at `dpi`) or, on screen, its own pixels per
   * output pixel. Soft means below 150 dpi, as print services warn, or enlarged more than 2×.
   */
  softPhotos(scale, dpi) {
    const soft = [];
    for (const item of this.store.collage.items) {
      if (item.content.type !== 'photo') continue;
      const source = this.layoutOf(item)?.source;
      if (!source || !(source.width > 0) || !(item.frame.width > 0)) continue;
      const perPixel = source.width / (item.frame.width * scale);
      const quality = dpi ? dpi * perPixel : perPixel;
      if (dpi ? quality < 150 : quality < 0.5) soft.push({ id: item.id, quality });
    }
    return soft;
  }

  /** Redraws one item mid-gesture without waiting for the server. */
  preview(item, frame, rotation, crop) {
    const index = this.store.collage.items.indexOf(item);
    const old = $('canvas').querySelector(`.item[data-id="${CSS.escape(item.id)}"]`);
    const replacement = this.drawItem(item, index, this.viewScale, frame, rotation, crop);
    if (old) old.replaceWith(replacement);
    if (item.id === this.store.selected) this.drawSelection(frame, rotation);
  }
}

/** A short hash of a text (FNV-1a, 32 bits, in base 36): enough to tell looks apart in an address. */
function textHash(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}
