// The editor: draws the layout the server resolved (frames, crops, slots, clipped to the canvas
// as the export is), turns gestures into CollageCore edits, and saves each one through the API
// (autosave) with its version.
import { api, setStatus } from './api.js';
import { fillSelect, templatePreview } from './ui.js';
import { rotate, sourceRect, topmostItem } from './geometry.js';

const $ = (id) => document.getElementById(id);

const newID = () => `i${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export class Editor {
  constructor(id, app) {
    this.id = id;
    this.app = app;
    this.doc = null;
    this.selected = null;
    this.gesture = null;
    this.liftMode = false;
    this.saving = Promise.resolve();
    this.listeners = [];
  }

  listen(target, type, handler, options) {
    target.addEventListener(type, handler, options);
    this.listeners.push(() => target.removeEventListener(type, handler, options));
  }

  close() {
    for (const remove of this.listeners) remove();
    this.listeners = [];
  }

  async open() {
    try {
      this.doc = await api.collage(this.id);
    } catch (error) {
      setStatus(error.message, 'error');
      return;
    }
    document.title = `${this.doc.collage.title} — Collage`;
    this.setUpToolbar();
    this.setUpCanvas();
    this.render();
    setStatus('All changes saved');
  }

  get collage() { return this.doc.collage; }

  // MARK: saving

  /** Sends edits at the current version; the server's document comes back and is drawn. */
  commit(edits) {
    this.saving = this.saving.then(async () => {
      setStatus('Saving…');
      try {
        this.doc = await api.edit(this.id, this.doc.version, edits);
        setStatus('All changes saved');
      } catch (error) {
        if (error.status === 409 && error.body?.error?.current) {
          this.doc = error.body.error.current;
          setStatus('This collage changed elsewhere; showing the latest version', 'error');
        } else {
          setStatus(`Not saved: ${error.message}`, 'error');
        }
      }
      this.render();
    });
    return this.saving;
  }

  /**
   * Undo and redo walk the collage's history in the library (one history for every tab, the
   * command line too, and it survives a restart), at the version this page last saw.
   */
  travel(direction) {
    this.saving = this.saving.then(async () => {
      if (!this.doc.history?.[direction === 'undo' ? 'canUndo' : 'canRedo']) return;
      setStatus('Saving…');
      try {
        this.doc = await api[direction](this.id, this.doc.version);
        setStatus('All changes saved');
      } catch (error) {
        if (error.status === 409 && error.body?.error?.current) {
          this.doc = error.body.error.current;
          setStatus('This collage changed elsewhere; showing the latest version', 'error');
        } else {
          setStatus(`Not saved: ${error.message}`, 'error');
        }
      }
      this.render();
    });
    return this.saving;
  }

  undo() { return this.travel('undo'); }
  redo() { return this.travel('redo'); }

  // MARK: drawing

  scale() {
    const stage = $('stage');
    const width = Math.max(200, stage.clientWidth - 60);
    const height = Math.max(200, window.innerHeight - stage.getBoundingClientRect().top - 80);
    const fit = Math.min(width / this.collage.canvas.width, height / this.collage.canvas.height);
    // A whole number of pixels along the long side, so the canvas's edges fall on pixels.
    const long = Math.max(this.collage.canvas.width, this.collage.canvas.height);
    return Math.max(1, Math.floor(long * fit)) / long;
  }

  render() {
    const canvas = $('canvas');
    // Redrawing replaces the items' elements: the one that had the keyboard gets it back.
    const focused = document.activeElement?.closest?.('#canvas .item')?.dataset.id;
    const collage = this.collage;
    const scale = this.scale();
    this.viewScale = scale;
    canvas.style.width = `${collage.canvas.width * scale}px`;
    canvas.style.height = `${collage.canvas.height * scale}px`;
    const background = collage.style.background;
    const transparent = background.length === 9 && background.endsWith('00');
    canvas.classList.toggle('transparent', transparent);
    canvas.style.backgroundColor = transparent ? 'transparent' : background;
    // Two layers: the collage, clipped to the canvas exactly as the export is, and above it the
    // selection (outline and handles), which is never clipped and always wins the pointer.
    const content = document.createElement('div');
    content.className = 'content';
    const children = [];
    const filled = new Set(collage.items.map((item) => item.slot).filter((slot) => slot !== undefined));
    (this.doc.layout?.slots ?? []).forEach((frame, index) => {
      if (filled.has(index)) return;
      const guide = document.createElement('div');
      guide.className = 'slot-guide';
      guide.dataset.slot = String(index);
      Object.assign(guide.style, {
        left: `${frame.x * scale}px`, top: `${frame.y * scale}px`,
        width: `${frame.width * scale}px`, height: `${frame.height * scale}px`,
      });
      children.push(guide);
    });
    collage.items.forEach((item, index) => children.push(this.drawItem(item, index, scale)));
    content.replaceChildren(...children);
    const overlay = document.createElement('div');
    overlay.className = 'overlay';
    canvas.replaceChildren(content, overlay);
    if (focused) canvas.querySelector(`.item[data-id="${CSS.escape(focused)}"]`)?.focus({ preventScroll: true });
    this.drawSelection();
    this.updateToolbar();
    document.title = `${collage.title} — Collage`;
  }

  /** The selected item's outline and handles, in the overlay, framed as the item is drawn. */
  drawSelection(frame, rotation) {
    const overlay = $('canvas').querySelector('.overlay');
    if (!overlay) return;
    const item = this.selectedItem();
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
    const media = this.doc.media[item.content.ref];
    const element = document.createElement('div');
    element.className = `item ${item.content.type}${item.id === this.selected ? ' selected' : ''}`;
    element.dataset.id = item.id;
    element.tabIndex = 0;
    element.setAttribute('role', 'img');
    element.setAttribute('aria-label', `${item.content.type} ${index + 1} of ${this.collage.items.length}`);
    const clip = document.createElement('div');
    clip.className = 'clip';
    const image = document.createElement('img');
    image.alt = '';
    image.draggable = false;
    if (media) {
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
        clip.style.borderRadius = `${this.collage.style.cornerRadius * scale}px`;
      } else {
        this.drawSticker(item, image, frame, box, media);
      }
    }
    clip.append(image);
    element.append(clip);
    Object.assign(element.style, {
      left: `${frame.x * scale}px`, top: `${frame.y * scale}px`,
      width: `${frame.width * scale}px`, height: `${frame.height * scale}px`,
      transform: `rotate(${rotation}deg)`, zIndex: String(index + 1),
    });
    return element;
  }

  /**
   * A sticker is shown with the renderer's own pixels (its outline and shadow exactly as the
   * export draws them), fetched at the screen's resolution for the frame's size. Until they
   * arrive, and while a gesture changes the frame, the last pixels drawn for it are stretched
   * to the frame, or the plain sticker is fitted in it.
   */
  drawSticker(item, image, frame, box, media) {
    const fitted = () => {
      const k = Math.min(box.width / media.width, box.height / media.height);
      Object.assign(image.style, {
        width: `${media.width * k}px`, height: `${media.height * k}px`,
        left: `${(box.width - media.width * k) / 2}px`, top: `${(box.height - media.height * k) / 2}px`,
      });
    };
    const place = (drawn) => {
      // CSS pixels per pixel of the drawn image, stretched if the frame changed since.
      const kx = (this.viewScale / drawn.scale) * (frame.width / drawn.frame.width);
      const ky = (this.viewScale / drawn.scale) * (frame.height / drawn.frame.height);
      image.src = drawn.url;
      Object.assign(image.style, {
        width: `${drawn.width * kx}px`, height: `${drawn.height * ky}px`,
        left: `${drawn.offsetX * kx}px`, top: `${drawn.offsetY * ky}px`,
      });
    };
    const style = item.stickerStyle ?? {};
    const pixels = Math.round(this.viewScale * (window.devicePixelRatio || 1) * 1000) / 1000;
    const key = [item.content.ref, style.outline ?? 0, !!style.shadow, item.frame.width, item.frame.height, pixels].join('|');
    this.stickerPixels ??= new Map();
    const latest = this.stickerPixels.get(`latest:${item.id}`);
    if (latest) place(latest); else fitted();
    if (frame !== item.frame) return;
    const cached = this.stickerPixels.get(key);
    if (cached) { place(cached); return; }
    const url = `/api/collages/${encodeURIComponent(this.id)}/items/${encodeURIComponent(item.id)}/sticker`
      + `?scale=${pixels}&v=${this.doc.version}`;
    fetch(url).then(async (response) => {
      if (!response.ok) return;
      const [offsetX, offsetY] = (response.headers.get('X-Collage-Offset') ?? '0,0').split(',').map(Number);
      const blob = await response.blob();
      const bitmap = await createImageBitmap(blob);
      const drawn = {
        url: URL.createObjectURL(blob), offsetX, offsetY, width: bitmap.width, height: bitmap.height,
        scale: Number(response.headers.get('X-Collage-Scale') ?? pixels), frame: { ...item.frame },
      };
      bitmap.close();
      this.stickerPixels.set(key, drawn);
      this.stickerPixels.set(`latest:${item.id}`, drawn);
      if (this.stickerPixels.size > 128) {
        const [oldest] = this.stickerPixels.keys();
        const stale = this.stickerPixels.get(oldest);
        this.stickerPixels.delete(oldest);
        if (![...this.stickerPixels.values()].includes(stale)) URL.revokeObjectURL(stale.url);
      }
      if (image.isConnected) place(drawn);
    }).catch(() => {});
  }

  /** What the server resolved for an item (its crop rectangle in the photo's pixels, …). */
  layoutOf(item) {
    return this.doc.layout?.items?.find((entry) => entry.id === item.id) ?? null;
  }

  /** Redraws one item mid-gesture without waiting for the server. */
  preview(item, frame, rotation, crop) {
    const index = this.collage.items.indexOf(item);
    const old = $('canvas').querySelector(`.item[data-id="${CSS.escape(item.id)}"]`);
    const replacement = this.drawItem(item, index, this.viewScale, frame, rotation, crop);
    if (old) old.replaceWith(replacement);
    if (item.id === this.selected) this.drawSelection(frame, rotation);
  }

  // MARK: gestures

  toPoints(event) {
    const box = $('canvas').getBoundingClientRect();
    return { x: (event.clientX - box.left) / this.viewScale, y: (event.clientY - box.top) / this.viewScale };
  }

  itemAt(point, except) { return topmostItem(this.collage.items, point, except); }

  select(id) {
    this.selected = id;
    for (const element of $('canvas').querySelectorAll('.item')) {
      element.classList.toggle('selected', element.dataset.id === id);
    }
    this.drawSelection();
    this.updateToolbar();
  }

  setUpCanvas() {
    const canvas = $('canvas');
    this.listen(canvas, 'pointerdown', (event) => this.pointerDown(event));
    this.listen(window, 'pointermove', (event) => this.pointerMove(event));
    this.listen(window, 'pointerup', (event) => this.pointerUp(event));
    this.listen(canvas, 'wheel', (event) => this.wheel(event), { passive: false });
    this.listen(canvas, 'focusin', (event) => {
      const element = event.target.closest('.item');
      if (element && element.dataset.id !== this.selected) this.select(element.dataset.id);
    });
    this.listen(document, 'keydown', (event) => this.key(event));
    this.listen(window, 'resize', () => this.render());
    const stage = $('stage');
    this.listen(stage, 'dragover', (event) => { event.preventDefault(); stage.classList.add('dropping'); });
    this.listen(stage, 'dragleave', () => stage.classList.remove('dropping'));
    this.listen(stage, 'drop', (event) => {
      event.preventDefault();
      stage.classList.remove('dropping');
      const files = [...event.dataTransfer.files].filter((file) => file.type.startsWith('image/') || /\.(heic|heif|avif)$/i.test(file.name));
      if (files.length) this.addPhotos(files);
    });
  }

  pointerDown(event) {
    // The selection's handles sit above every item, so they are found first.
    const element = event.target.closest('.selection') ?? event.target.closest('.item');
    if (!element) { this.select(null); return; }
    const item = this.collage.items.find((candidate) => candidate.id === element.dataset.id);
    if (!item) return;
    event.preventDefault();
    if (this.liftMode) { this.liftAt(item, this.toPoints(event)); return; }
    this.select(item.id);
    const start = this.toPoints(event);
    let kind = 'move';
    if (event.target.classList.contains('resize')) kind = 'resize';
    else if (event.target.classList.contains('rotate')) kind = 'rotate';
    else if (event.shiftKey && item.content.type === 'photo') kind = 'pan';
    this.gesture = { kind, item, start, frame: { ...item.frame }, rotation: item.rotation, crop: item.crop, moved: false };
  }

  pointerMove(event) {
    const gesture = this.gesture;
    if (!gesture) return;
    const point = this.toPoints(event);
    const dx = point.x - gesture.start.x, dy = point.y - gesture.start.y;
    if (Math.abs(dx) + Math.abs(dy) > 1) gesture.moved = true;
    const item = gesture.item;
    const f = item.frame;
    if (gesture.kind === 'move') {
      gesture.frame = { ...f, x: f.x + dx, y: f.y + dy };
      const target = this.itemAt(point, item.id);
      for (const element of $('canvas').querySelectorAll('.item')) {
        element.classList.toggle('drop-target', !!target && element.dataset.id === target.id && item.slot !== undefined);
      }
    } else if (gesture.kind === 'resize') {
      gesture.frame = { ...f, width: Math.max(20, f.width + dx), height: Math.max(20, f.height + dy) };
    } else if (gesture.kind === 'rotate') {
      const cx = f.x + f.width / 2, cy = f.y + f.height / 2;
      let degrees = (Math.atan2(point.y - cy, point.x - cx) * 180) / Math.PI + 90;
      if (event.shiftKey) degrees = Math.round(degrees / 15) * 15;
      gesture.rotation = ((degrees + 540) % 360) - 180;
    } else if (gesture.kind === 'pan') {
      const media = this.doc.media[item.content.ref];
      if (!media) return;
      const crop = item.crop ?? { focus: media.focus ?? { x: 0.5, y: 0.5 }, zoom: 1 };
      const source = sourceRect(media, f, crop);
      const perPoint = source.width / f.width;
      gesture.crop = {
        zoom: crop.zoom,
        focus: {
          x: Math.min(1, Math.max(0, crop.focus.x - (dx * perPoint) / media.width)),
          y: Math.min(1, Math.max(0, crop.focus.y - (dy * perPoint) / media.height)),
        },
      };
    }
    this.preview(item, gesture.frame, gesture.rotation, gesture.crop);
  }

  pointerUp(event) {
    const gesture = this.gesture;
    this.gesture = null;
    if (!gesture || !gesture.moved) return;
    const item = gesture.item;
    const round = (value) => Math.round(value * 100) / 100;
    if (gesture.kind === 'move') {
      const target = this.itemAt(this.toPoints(event), item.id);
      if (target && item.slot !== undefined) {
        this.commit([{ op: 'swapContents', first: item.id, second: target.id }]);
      } else {
        this.commit([{ op: 'moveItem', id: item.id, origin: { x: round(gesture.frame.x), y: round(gesture.frame.y) } }]);
      }
    } else if (gesture.kind === 'resize') {
      const f = gesture.frame;
      this.commit([{ op: 'resizeItem', id: item.id, frame: { x: round(f.x), y: round(f.y), width: round(f.width), height: round(f.height) } }]);
    } else if (gesture.kind === 'rotate') {
      this.commit([{ op: 'rotateItem', id: item.id, degrees: round(gesture.rotation) }]);
    } else if (gesture.kind === 'pan') {
      this.commit([{ op: 'setCrop', id: item.id, crop: gesture.crop }]);
    }
  }

  wheel(event) {
    const element = event.target.closest('.item');
    const item = element && this.collage.items.find((candidate) => candidate.id === element.dataset.id);
    if (!item || item.id !== this.selected || item.content.type !== 'photo') return;
    event.preventDefault();
    const media = this.doc.media[item.content.ref];
    const crop = this.pendingCrop ?? item.crop ?? { focus: media?.focus ?? { x: 0.5, y: 0.5 }, zoom: 1 };
    const zoom = Math.min(20, Math.max(1, crop.zoom * (event.deltaY < 0 ? 1.1 : 1 / 1.1)));
    this.pendingCrop = { focus: crop.focus, zoom: Math.round(zoom * 1000) / 1000 };
    this.preview(item, item.frame, item.rotation, this.pendingCrop);
    clearTimeout(this.wheelTimer);
    this.wheelTimer = setTimeout(() => {
      const next = this.pendingCrop;
      this.pendingCrop = null;
      this.commit([{ op: 'setCrop', id: item.id, crop: next }]);
    }, 350);
  }

  key(event) {
    if (event.target.closest('input, select, textarea, dialog')) return;
    const mod = event.ctrlKey || event.metaKey;
    if (mod && event.key.toLowerCase() === 'z') {
      event.preventDefault();
      if (event.shiftKey) this.redo(); else this.undo();
      return;
    }
    if (mod && event.key.toLowerCase() === 'y') { event.preventDefault(); this.redo(); return; }
    if (event.key === 'Escape') { this.liftMode = false; $('canvas').classList.remove('lift-mode'); this.select(null); return; }
    if (event.key === 'Enter' && this.liftMode) { event.preventDefault(); this.liftAt(this.selectedItem(), null); return; }
    const item = this.selectedItem();
    if (!item) return;
    if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      this.selected = null;
      this.commit([{ op: 'removeItem', id: item.id }]);
      return;
    }
    if (event.key === '[' || event.key === ']' || event.key === '{' || event.key === '}') {
      event.preventDefault();
      const turn = (event.key === '[' || event.key === '{' ? -1 : 1) * (event.shiftKey ? 15 : 5);
      this.commit([{ op: 'rotateItem', id: item.id, degrees: item.rotation + turn }]);
      return;
    }
    if (event.key === '-' || event.key === '=' || event.key === '+') {
      event.preventDefault();
      const factor = event.key === '-' ? 1 / 1.05 : 1.05;
      const f = item.frame;
      const width = Math.max(20, f.width * factor), height = Math.max(20, f.height * factor);
      const round = (value) => Math.round(value * 100) / 100;
      this.commit([{
        op: 'resizeItem', id: item.id,
        frame: { x: round(f.x + (f.width - width) / 2), y: round(f.y + (f.height - height) / 2), width: round(width), height: round(height) },
      }]);
      return;
    }
    const step = event.shiftKey ? 10 : 1;
    const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (moves[event.key]) {
      event.preventDefault();
      const [dx, dy] = moves[event.key];
      this.commit([{ op: 'moveItem', id: item.id, origin: { x: item.frame.x + dx, y: item.frame.y + dy } }]);
    }
  }

  selectedItem() { return this.collage.items.find((item) => item.id === this.selected) ?? null; }

  // MARK: toolbar

  setUpToolbar() {
    const collage = this.collage;
    const title = $('title-input');
    title.value = collage.title;
    this.listen(title, 'change', () => this.commit([{ op: 'rename', title: title.value }]));
    const ratio = collage.canvas.width / collage.canvas.height;
    const current = this.app.presets.find((p) => Math.abs(p.canvas.width / p.canvas.height - ratio) < 0.005);
    fillSelect($('aspect-select'), [['', 'Custom'], ...this.app.presets.map((p) => [p.aspect, p.name])],
      current ? current.aspect : '');
    this.listen($('aspect-select'), 'change', (event) => {
      if (event.target.value) this.commit([{ op: 'setAspect', aspect: event.target.value }]);
    });
    const styleEdit = () => ({
      op: 'setStyle',
      style: {
        background: $('background-input').value, spacing: Number($('spacing-input').value),
        padding: Number($('padding-input').value), cornerRadius: Number($('radius-input').value),
      },
    });
    for (const id of ['background-input', 'spacing-input', 'padding-input', 'radius-input']) {
      this.listen($(id), 'change', () => this.commit([styleEdit()]));
    }
    this.listen($('undo'), 'click', () => this.undo());
    this.listen($('redo'), 'click', () => this.redo());
    this.listen($('forward'), 'click', () => this.selected && this.commit([{ op: 'reorder', id: this.selected, move: 'forward' }]));
    this.listen($('backward'), 'click', () => this.selected && this.commit([{ op: 'reorder', id: this.selected, move: 'backward' }]));
    this.listen($('delete-item'), 'click', () => {
      const id = this.selected;
      this.selected = null;
      if (id) this.commit([{ op: 'removeItem', id }]);
    });
    this.listen($('file-input'), 'change', (event) => {
      const files = [...event.target.files];
      event.target.value = '';
      if (files.length) this.addPhotos(files);
    });
    this.listen($('layout-button'), 'click', () => this.openLayouts());
    this.listen($('export-button'), 'click', () => this.openExport());
    this.listen($('lift'), 'click', () => this.startLift());
  }

  updateToolbar() {
    const collage = this.collage;
    const background = collage.style.background.slice(0, 7);
    if (document.activeElement !== $('background-input')) $('background-input').value = background;
    $('spacing-input').value = collage.style.spacing;
    $('padding-input').value = collage.style.padding;
    $('radius-input').value = collage.style.cornerRadius;
    if (document.activeElement !== $('title-input')) $('title-input').value = collage.title;
    $('undo').disabled = !this.doc.history?.canUndo;
    $('redo').disabled = !this.doc.history?.canRedo;
    const item = this.selectedItem();
    for (const id of ['forward', 'backward', 'delete-item']) $(id).disabled = !item;
    $('lift').disabled = !item || item.content.type !== 'photo' || !this.app.stickers || !!this.lifting;
  }

  openLayouts() {
    const grid = $('layout-grid');
    grid.replaceChildren(...this.app.templates.map((template) => {
      const button = document.createElement('button');
      button.className = 'layout-option';
      button.setAttribute('aria-pressed', String(template.id === this.collage.template));
      button.setAttribute('aria-label', `${template.name}, ${template.slots} photos${template.premium ? ', premium' : ''}`);
      const name = document.createElement('span');
      name.textContent = template.name;
      button.append(templatePreview(template), name);
      if (template.premium) {
        const badge = document.createElement('span');
        badge.className = 'premium';
        badge.textContent = '★ Premium';
        button.append(badge);
      }
      button.addEventListener('click', async () => {
        $('layout-dialog').close();
        await this.commit([{ op: 'applyTemplate', template: template.id }]);
        const loose = this.collage.items.filter((item) => item.content.type === 'photo' && item.slot === undefined);
        if (this.collage.template === template.id && loose.length) {
          setStatus(`${template.name} has ${template.slots} slots: ${loose.length} photo${loose.length === 1 ? ' is' : 's are'} `
            + 'stacked in front, at the centre');
        }
      });
      return button;
    }));
    $('layout-dialog').showModal();
  }

  async addPhotos(files) {
    const progress = $('upload-progress');
    progress.hidden = false;
    $('upload-text').textContent = `Uploading ${files.length} photo${files.length === 1 ? '' : 's'}…`;
    try {
      const result = await api.upload(files, (fraction) => { $('upload-bar').value = Math.round(fraction * 100); });
      for (const failure of result.errors ?? []) setStatus(`${failure.file}: ${failure.message}`, 'error');
      const edits = (result.photos ?? []).map((photo) => ({ op: 'addItem', id: newID(), content: { type: 'photo', ref: photo.id } }));
      if (edits.length) await this.commit(edits);
    } catch (error) {
      setStatus(`Upload failed: ${error.message}`, 'error');
    } finally {
      progress.hidden = true;
      $('upload-bar').value = 0;
    }
  }

  // MARK: export

  openExport() {
    const form = $('export-form');
    const update = () => {
      const kind = form.sizeKind.value;
      $('scale-field').hidden = kind !== 'scale';
      $('size-field').hidden = kind !== 'size';
      $('print-field').hidden = kind !== 'print';
      const { width, height } = this.collage.canvas;
      let pixels = '';
      if (kind === 'scale') pixels = `${Math.round(width * form.scale.value)} × ${Math.round(height * form.scale.value)} px`;
      else if (kind === 'size') {
        const k = form.size.value / Math.max(width, height);
        pixels = `${Math.round(width * k)} × ${Math.round(height * k)} px`;
      } else {
        const match = form.print.value.match(/^([\d.]+)x([\d.]+)(in|cm|mm)(?:@(\d+))?$/i);
        if (match) {
          const perInch = { in: 1, cm: 2.54, mm: 25.4 }[match[3].toLowerCase()];
          const dpi = Number(match[4] ?? 300);
          const k = Math.min((match[1] / perInch) * dpi / width, (match[2] / perInch) * dpi / height);
          pixels = `${Math.round(width * k)} × ${Math.round(height * k)} px at ${dpi} DPI`;
        } else pixels = 'Print size looks like 6x4in@300';
      }
      $('export-pixels').textContent = pixels;
    };
    form.oninput = update;
    update();
    form.onsubmit = async (event) => {
      if (event.submitter?.value !== 'download') return;
      const params = { format: form.format.value };
      params[form.sizeKind.value] = form[form.sizeKind.value].value;
      setStatus('Exporting…');
      try {
        const response = await api.download(this.id, params);
        if (!response.ok) throw new Error((await response.json()).error.message);
        const blob = await response.blob();
        const link = document.createElement('a');
        link.href = URL.createObjectURL(blob);
        link.download = (response.headers.get('Content-Disposition') || '').match(/filename="([^"]+)"/)?.[1] ?? 'collage';
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(link.href), 10000);
        setStatus('Exported');
      } catch (error) {
        setStatus(`Export failed: ${error.message}`, 'error');
      }
    };
    $('export-dialog').showModal();
  }

  // MARK: lifting subjects

  startLift() {
    const item = this.selectedItem();
    if (!item || item.content.type !== 'photo') return;
    this.liftMode = true;
    $('canvas').classList.add('lift-mode');
    setStatus('Click the subject to lift it (Enter lifts every subject, Escape cancels)');
  }

  /** Lifts the subject under `point` (canvas points), or every subject when `point` is null. */
  async liftAt(item, point) {
    this.liftMode = false;
    $('canvas').classList.remove('lift-mode');
    if (!item || item.content.type !== 'photo') return;
    const media = this.doc.media[item.content.ref];
    const body = { outline: 0 };
    if (point && media) {
      const f = item.frame;
      const local = rotate(point.x, point.y, f.x + f.width / 2, f.y + f.height / 2, -item.rotation);
      const source = sourceRect(media, f, item.crop ?? (media.focus ? { focus: media.focus, zoom: 1 } : null));
      const px = source.x + ((local.x - f.x) / f.width) * source.width;
      const py = source.y + ((local.y - f.y) / f.height) * source.height;
      body.at = { x: Math.min(1, Math.max(0, px / media.width)), y: Math.min(1, Math.max(0, py / media.height)) };
    }
    const element = $('canvas').querySelector(`.item[data-id="${CSS.escape(item.id)}"]`);
    element?.classList.add('lifting');
    this.lifting = true;
    this.updateToolbar();
    this.particles(item);
    setStatus('Lifting the subject…');
    try {
      const sticker = await api.lift(item.content.ref, body);
      const landing = this.landingFrame(item, sticker);
      await this.bounceIn(item, sticker, landing);
      const id = newID();
      const round = (value) => Math.round(value * 100) / 100;
      const edits = [{
        op: 'addItem', id, content: { type: 'sticker', ref: sticker.id },
        frame: { x: round(landing.x), y: round(landing.y), width: round(landing.width), height: round(landing.height) },
      }];
      if (item.rotation) edits.push({ op: 'rotateItem', id, degrees: item.rotation });
      await this.commit(edits);
      if (this.collage.items.some((candidate) => candidate.id === id)) this.select(id);
    } catch (error) {
      element?.classList.remove('lifting');
      setStatus(error.status === 422 ? `No subject to lift: ${error.message}` : `Lift failed: ${error.message}`, 'error');
    } finally {
      this.lifting = false;
      this.updateToolbar();
    }
  }

  /**
   * Where a lifted sticker lands: 80 % of its photo's frame, turned as the photo is, and moved
   * down and to the right by a tenth of the frame's shorter side (along the photo's own axes).
   * Exactly over its photo the sticker reads as a doubled, blurred subject; offset, it reads as
   * a sticker peeled off the photo, and both stay easy to grab.
   */
  landingFrame(item, sticker) {
    const f = item.frame;
    const k = Math.min((f.width * 0.8) / sticker.width, (f.height * 0.8) / sticker.height);
    const width = Math.max(20, sticker.width * k), height = Math.max(20, sticker.height * k);
    const shift = Math.min(f.width, f.height) * 0.1;
    const cx = f.x + f.width / 2, cy = f.y + f.height / 2;
    const centre = rotate(cx + shift, cy + shift, cx, cy, item.rotation);
    return { x: centre.x - width / 2, y: centre.y - height / 2, width, height };
  }

  particles(item) {
    const scale = this.viewScale;
    const f = item.frame;
    for (let i = 0; i < 28; i++) {
      const dot = document.createElement('div');
      dot.className = 'particle';
      const x = (f.x + Math.random() * f.width) * scale;
      const y = (f.y + Math.random() * f.height) * scale;
      Object.assign(dot.style, { left: `${x}px`, top: `${y}px`, zIndex: '2000' });
      dot.style.setProperty('--dx', `${(Math.random() - 0.5) * 80}px`);
      dot.style.setProperty('--dy', `${-20 - Math.random() * 60}px`);
      dot.style.animationDelay = `${Math.random() * 0.3}s`;
      ($('canvas').querySelector('.content') ?? $('canvas')).append(dot);
      setTimeout(() => dot.remove(), 1400);
    }
  }

  /** The sticker appears where it will land, turned as its photo, scales 1 → 1.1 → 1, then lands. */
  bounceIn(item, sticker, landing) {
    return new Promise((resolve) => {
      const scale = this.viewScale;
      const image = document.createElement('img');
      image.src = sticker.image;
      image.alt = 'Lifted subject';
      image.className = 'pop';
      Object.assign(image.style, {
        position: 'absolute', zIndex: '3000', width: `${landing.width * scale}px`, height: `${landing.height * scale}px`,
        left: `${landing.x * scale}px`, top: `${landing.y * scale}px`, rotate: `${item.rotation}deg`,
      });
      ($('canvas').querySelector('.content') ?? $('canvas')).append(image);
      setTimeout(() => { image.remove(); resolve(); }, 600);
    });
  }
}
