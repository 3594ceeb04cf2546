// Pointer, wheel and keyboard: gestures preview locally and end as one CollageCore edit each.
import { sourceRect, topmostItem } from './geometry.js';
import { $ } from './ui.js';

/** Methods of the editor (mixed into `Editor`); `this` is the editor. */
export class Gestures {
  toPoints(event) {
    const box = $('canvas').getBoundingClientRect();
    return { x: (event.clientX - box.left) / this.viewScale, y: (event.clientY - box.top) / this.viewScale };
  }

  itemAt(point, except) { return topmostItem(this.collage.items, point, except); }

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
      gesture.frame = { ...f, width: Math.max(this.app.minimumItemSide, f.width + dx), height: Math.max(this.app.minimumItemSide, f.height + dy) };
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
    // Item keys act on the item the keyboard is on (or the canvas, after a click), never while a
    // button or link has focus: Delete on a focused toolbar button must not remove a photo.
    if (event.target.closest('button, a, [role=toolbar]')) return;
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
      const width = Math.max(this.app.minimumItemSide, f.width * factor), height = Math.max(this.app.minimumItemSide, f.height * factor);
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
}
