// Lifting a subject: choosing it, the server's lift, and the sticker's landing.
import { api, setStatus } from './api.js';
import { rotate, sourceRect } from './geometry.js';
import { $, newID, toast } from './ui.js';

/** Lifting a subject from the selected photo, and the sticker's landing. */
export class Lifting {
  /** A view of the editor's store; `editor` names the other views it works with. */
  constructor(store, editor) {
    this.store = store;
    this.editor = editor;
  }

  startLift() {
    const item = this.store.selectedItem();
    if (!item || item.content.type !== 'photo') return;
    this.editor.toolbar.setCropMode(false);
    this.store.setMode('lift', true);
    $('canvas').classList.add('lift-mode');
    $('canvas').querySelector(`.item[data-id="${CSS.escape(item.id)}"]`)?.classList.add('lift-target');
    setStatus(window.matchMedia('(pointer: coarse)').matches
      ? 'Tap the subject to lift it'
      : 'Click the subject to lift it (Enter lifts every subject, Escape cancels)');
    this.editor.toolbar.showModeHint();
  }

  /** Leaves lift mode without lifting. */
  stopLiftMode() {
    if (!this.store.liftMode) return;
    this.store.setMode('lift', false);
    $('canvas').classList.remove('lift-mode');
    for (const element of $('canvas').querySelectorAll('.lift-target')) element.classList.remove('lift-target');
    this.editor.toolbar.showModeHint();
    setStatus('All changes saved');
  }

  /** Lifts the subject under `point` (canvas points), or every subject when `point` is null. */
  async liftAt(item, point) {
    this.stopLiftMode();
    if (!item || item.content.type !== 'photo') return;
    const media = this.store.doc.media[item.content.ref];
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
    // Escape (or leaving the collage) cancels the lift: the request is dropped, the photo looks
    // as it did at once, and nothing is added.
    const cancel = new AbortController();
    this.cancelLift = () => cancel.abort();
    this.lifting = true;
    this.editor.toolbar.updateToolbar();
    this.particles(item);
    setStatus('Lifting the subject… (Escape cancels)');
    try {
      const sticker = await api.lift(item.content.ref, body, cancel.signal);
      if (cancel.signal.aborted) throw new DOMException('cancelled', 'AbortError');
      const landing = this.landingFrame(item, sticker, point);
      // Gone to another collage meanwhile: the sticker is still added here, without the show.
      if (!this.store.closed) await this.bounceIn(item, sticker, landing);
      // Escape during the landing: nothing is added.
      if (cancel.signal.aborted) throw new DOMException('cancelled', 'AbortError');
      const id = newID();
      const round = (value) => Math.round(value * 100) / 100;
      const edits = [{
        op: 'addItem', id, content: { type: 'sticker', ref: sticker.id },
        frame: { x: round(landing.x), y: round(landing.y), width: round(landing.width), height: round(landing.height) },
      }];
      if (item.rotation) edits.push({ op: 'rotateItem', id, degrees: item.rotation });
      await this.store.commit(edits);
      if (!this.store.closed && this.store.collage.items.some((candidate) => candidate.id === id)) {
        this.store.select(id);
        const touch = window.matchMedia('(pointer: coarse)').matches;
        toast(touch ? 'Sticker added: drag it anywhere, pinch with two fingers to size and turn it'
          : 'Sticker added: drag it anywhere, or use the handles to size and turn it', 'success');
      }
    } catch (error) {
      element?.classList.remove('lifting');
      if (error.name === 'AbortError') {
        setStatus('All changes saved');
        return;
      }
      // The words for a person when the server has them (no file name, no pixel coordinates).
      const plain = error.body?.error?.plain;
      const message = plain ?? (error.status === 422 ? `No subject to lift: ${error.message}` : `Lift failed: ${error.message}`);
      setStatus(message, 'error');
      toast(message, 'error');
    } finally {
      this.lifting = false;
      this.cancelLift = null;
      this.editor.toolbar.updateToolbar();
    }
  }

  /** Cancels a lift under way; whether there was one. */
  cancelLifting() {
    if (!this.lifting || !this.cancelLift) return false;
    this.cancelLift();
    // The photo's look comes back now, not when the request has wound down.
    for (const element of $('canvas').querySelectorAll('.item.lifting')) element.classList.remove('lifting');
    for (const dot of $('canvas').querySelectorAll('.particle')) dot.remove();
    return true;
  }

  /**
   * Where a lifted sticker lands: at the size its subject has in the photo as the frame shows
   * it, but no larger than 80 % of the frame (a sweet tapped among many was blown up six times to
   * fill the frame, soft), turned as the photo is, and moved down and to the right (along the
   * photo's own axes) from where it was tapped, or from the frame's centre, by a tenth of the
   * frame's shorter side (at most a third of the sticker's size). Exactly over its photo the
   * sticker reads as a doubled, blurred subject; offset, it reads as a sticker peeled off the
   * photo, and both stay easy to grab.
   */
  landingFrame(item, sticker, point) {
    const f = item.frame;
    let k = Math.min((f.width * 0.8) / sticker.width, (f.height * 0.8) / sticker.height);
    const media = this.store.doc.media[item.content.ref];
    if (media) {
      const source = sourceRect(media, f, item.crop ?? (media.focus ? { focus: media.focus, zoom: 1 } : null));
      if (source.width > 0) k = Math.min(k, f.width / source.width);
    }
    // The sticker's own proportions, however thin it is, so long as its long side stays within
    // the canvas's short side (a hair-thin one would grow past the canvas): past that, only its
    // short side is held at the least an item may have.
    const side = this.store.app.minimumItemSide;
    const canvasSide = Math.min(this.store.collage.canvas.width, this.store.collage.canvas.height);
    const long = Math.max(1, sticker.width, sticker.height);
    k = Math.min(Math.max(k, side / Math.max(1, Math.min(sticker.width, sticker.height))), canvasSide / long);
    const width = Math.max(side, sticker.width * k), height = Math.max(side, sticker.height * k);
    const shift = Math.min(Math.min(f.width, f.height) * 0.1, Math.max(width, height) / 3);
    const from = point ?? { x: f.x + f.width / 2, y: f.y + f.height / 2 };
    const centre = rotate(from.x + shift, from.y + shift, from.x, from.y, item.rotation);
    // Whole on the canvas, turned as it lands: lifted from the foot of a photo at the canvas's
    // foot, it hung half off it, cut in the export, its turn handle out of reach.
    const canvas = this.store.collage.canvas;
    const radians = (item.rotation * Math.PI) / 180;
    const halfW = (Math.abs(width * Math.cos(radians)) + Math.abs(height * Math.sin(radians))) / 2;
    const halfH = (Math.abs(width * Math.sin(radians)) + Math.abs(height * Math.cos(radians))) / 2;
    const cx = Math.min(Math.max(halfW, centre.x), Math.max(halfW, canvas.width - halfW));
    const cy = Math.min(Math.max(halfH, centre.y), Math.max(halfH, canvas.height - halfH));
    return { x: cx - width / 2, y: cy - height / 2, width, height };
  }

  particles(item) {
    const scale = this.editor.canvas.viewScale;
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
      const scale = this.editor.canvas.viewScale;
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
