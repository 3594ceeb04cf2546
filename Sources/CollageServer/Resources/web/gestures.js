// Pointer, wheel and keyboard: gestures preview locally and end as one CollageCore edit each.
import { sourceRect, topmostItem } from './geometry.js';
import { $, newID } from './ui.js';

/** Pointer, wheel and keys on the canvas, each ending as one intent to the store. */
export class Gestures {
  /** A view of the editor's store; `editor` names the other views it works with. */
  constructor(store, editor) {
    this.store = store;
    this.editor = editor;
  }

  toPoints(event) {
    const box = $('canvas').getBoundingClientRect();
    return { x: (event.clientX - box.left) / this.editor.canvas.viewScale, y: (event.clientY - box.top) / this.editor.canvas.viewScale };
  }

  /** The item a person sees at a canvas point: the topmost whose frame holds it, past a sticker's clear parts. */
  itemAt(point, except) {
    const items = this.hitItems(this.store.collage.items).filter((item) => !this.editor.canvas.seesThrough(item, point));
    return topmostItem(items, point, except);
  }

  /** The first element matching `selector` under the pointer, whatever lies above it. */
  beneath(event, selector) {
    return document.elementsFromPoint(event.clientX, event.clientY).map((element) => element.closest?.(selector)).find(Boolean) ?? null;
  }

  /** Items with the outlines the server resolved for shaped photos, for hit-testing. */
  hitItems(items) {
    return items.map((item) => {
      const outline = this.editor.canvas.layoutOf(item)?.outline;
      return outline ? { ...item, outline } : item;
    });
  }

  setUpCanvas() {
    const canvas = $('canvas');
    this.pointers = new Map();
    this.store.listen(canvas, 'pointerdown', (event) => this.pointerDown(event));
    // A click on the bare stage around the canvas lets go of the selection, as on the canvas.
    this.store.listen($('stage'), 'pointerdown', (event) => {
      // Only the bare stage itself: a press on the canvas may have redrawn (and detached) its
      // target by the time it bubbles here.
      if (event.target !== $('stage')) return;
      this.editor.lifter.stopLiftMode();
      this.editor.toolbar.setCropMode(false);
      this.store.select(null);
    });
    this.store.listen(window, 'pointermove', (event) => this.pointerMove(event));
    this.store.listen(window, 'pointerup', (event) => this.pointerUp(event));
    this.store.listen(window, 'pointercancel', (event) => this.pointerUp(event));
    this.store.listen(canvas, 'wheel', (event) => this.wheel(event), { passive: false });
    // A finger dragging, pinching or turning an item is no scroll for the browser to fling on:
    // with one running (touch-action alone did not stop it), the next tap on a tool only
    // stopped the fling, and Flip tapped just after a drag did nothing. The moves are heard on
    // the element the finger came down on: the item is drawn again as it moves, and the moves
    // of a detached element reach no ancestor.
    // (One listener for all, so an element touched again does not gather more of them.)
    const holdStill = (move) => { if (move.cancelable) move.preventDefault(); };
    this.store.listen(canvas, 'touchstart', (event) => {
      event.target.addEventListener('touchmove', holdStill, { passive: false });
    }, { passive: false });
    this.store.listen(canvas, 'focusin', (event) => {
      const element = event.target.closest('.item');
      if (element && element.dataset.id !== this.store.selected) {
        this.editor.lifter.stopLiftMode();
        this.editor.toolbar.setCropMode(false);
        this.store.select(element.dataset.id);
      }
    });
    this.store.listen(document, 'keydown', (event) => this.key(event));
    // The stage changes size with the window and when a phone's sheet opens or closes: the
    // canvas is fitted again, once per frame at most.
    let pending = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(pending);
      pending = requestAnimationFrame(() => { if (!this.gesture) this.editor.canvas.render(); });
    });
    observer.observe($('stage'));
    this.store.listeners.push(() => observer.disconnect());
    // Files from the desktop and photos from the tray can be dropped: on an empty frame they
    // fill it, on a photo they replace it, anywhere else they are added as a tap adds them.
    const stage = $('stage');
    const dropTarget = (event) => {
      const item = this.itemAt(this.toPoints(event));
      // An empty frame seen past a sticker's clear part takes the drop as well.
      const slot = event.target.closest?.('.slot-empty') ?? (item ? null : this.beneath(event, '.slot-empty'));
      if (slot) return { slot: Number(slot.dataset.slot), element: slot };
      if (item?.content.type === 'photo') {
        return { replace: item.id, element: $('canvas').querySelector(`.item[data-id="${CSS.escape(item.id)}"]`) };
      }
      return null;
    };
    const mark = (target) => {
      for (const element of $('canvas').querySelectorAll('.drop-target')) element.classList.remove('drop-target');
      target?.element?.classList.add('drop-target');
    };
    this.store.listen(stage, 'dragover', (event) => {
      event.preventDefault();
      stage.classList.add('dropping');
      mark(dropTarget(event));
    });
    this.store.listen(stage, 'dragleave', (event) => {
      if (!stage.contains(event.relatedTarget)) { stage.classList.remove('dropping'); mark(null); }
    });
    this.store.listen(stage, 'drop', (event) => {
      event.preventDefault();
      stage.classList.remove('dropping');
      // Frames seen while a layout is tried are not the collage's: the drop just adds.
      const target = this.store.previewing ? null : dropTarget(event);
      this.editor.premium.endPreview();
      mark(null);
      const photo = event.dataTransfer.getData('application/x-collage-photo');
      if (photo) {
        if (target?.slot !== undefined) this.editor.panels.fillSlot(target.slot, photo);
        else if (target?.replace) this.editor.panels.replacePhoto(target.replace, photo);
        else this.store.commit([{ op: 'addItem', id: newID(), content: { type: 'photo', ref: photo } }]);
        return;
      }
      const files = [...event.dataTransfer.files].filter((file) => file.type.startsWith('image/') || /\.(heic|heif|avif)$/i.test(file.name));
      if (files.length) this.editor.toolbar.addPhotos(files, target);
    });
  }

  pointerDown(event) {
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (this.pointers.size === 1) this.selectedAtPress = this.store.selected;
    // A second finger on the canvas turns the gesture into a pinch: resize and turn together
    // (or zoom the picture, in crop mode).
    if (this.gesture?.kind === 'pinch') { event.preventDefault(); return; }  // a third finger changes nothing
    if (this.pointers.size === 2 && this.gesture && event.pointerType === 'touch') {
      event.preventDefault();
      this.startPinch();
      return;
    }
    if (event.target.closest('.slot-empty button')) return;
    // The selection's handles sit above every item, so they are found first.
    const element = event.target.closest('.selection') ?? event.target.closest('.item');
    const letGo = () => { this.editor.lifter.stopLiftMode(); this.store.select(null); this.editor.toolbar.setCropMode(false); };
    if (!element) { letGo(); return; }
    let item = this.store.collage.items.find((candidate) => candidate.id === element.dataset.id);
    if (!item) return;
    // A sticker's element is its whole frame; a press on a clear part of it is for what shows
    // there (the photo it was lifted from, the background), as in the export.
    if (!element.classList.contains('selection') && this.editor.canvas.seesThrough(item, this.toPoints(event))) {
      item = this.itemAt(this.toPoints(event));
      if (!item) {
        // An empty frame's "+" seen there is pressed, as if nothing lay above it.
        const add = this.beneath(event, '.slot-empty button');
        if (add) { event.preventDefault(); add.click(); return; }
        letGo();
        return;
      }
    }
    event.preventDefault();
    if (this.store.liftMode) {
      // The click lifts from the chosen photo wherever it lands on it, even through a sticker.
      const chosen = this.store.selectedItem();
      const point = this.toPoints(event);
      const onChosen = chosen && topmostItem(this.hitItems([chosen]), point)?.id === chosen.id;
      if (onChosen) this.editor.lifter.liftAt(chosen, point); else this.editor.lifter.stopLiftMode();
      return;
    }
    if (item.id !== this.store.selected) this.editor.toolbar.setCropMode(false);
    this.store.select(item.id);
    // The pointer took the keyboard's place: its keys (Delete, arrows, Shift-H) act on this item
    // even after a panel's button had the focus (preventDefault keeps the browser from moving it).
    $('canvas').querySelector(`.item[data-id="${CSS.escape(item.id)}"]`)?.focus({ preventScroll: true });
    const start = this.toPoints(event);
    let kind = 'move';
    if (event.target.classList.contains('resize')) kind = 'resize';
    else if (event.target.classList.contains('rotate')) kind = 'rotate';
    else if ((event.shiftKey || this.store.cropMode) && item.content.type === 'photo') kind = 'pan';
    this.gesture = {
      kind, item, start, pointer: event.pointerId, frame: { ...item.frame }, rotation: item.rotation, crop: item.crop, moved: false,
    };
  }

  /** The two fingers' distance and angle, from which a pinch scales and turns. */
  fingers() {
    const [a, b] = [...this.pointers.values()];
    return { distance: Math.hypot(b.x - a.x, b.y - a.y), angle: (Math.atan2(b.y - a.y, b.x - a.x) * 180) / Math.PI };
  }

  startPinch() {
    // The first finger fell on a clear corner of the selected sticker, and so on the photo seen
    // there, but the second is on the sticker: the pinch is the sticker's, as the person meant
    // (the photo under it grew and turned across its neighbours instead).
    const before = this.store.collage.items.find((candidate) => candidate.id === this.selectedAtPress);
    if (before && before.id !== this.gesture.item.id && !this.gesture.moved) {
      const onIt = [...this.pointers.values()].some((finger) => {
        const point = this.toPoints({ clientX: finger.x, clientY: finger.y });
        return topmostItem(this.hitItems([before]), point)?.id === before.id && !this.editor.canvas.seesThrough(before, point);
      });
      if (onIt) {
        this.store.select(before.id);
        this.gesture = { ...this.gesture, item: before, frame: { ...before.frame }, rotation: before.rotation, crop: before.crop };
      }
    }
    const { item, frame } = this.gesture;
    const media = this.store.doc.media[item.content.ref];
    const crop = item.crop ?? (media ? { focus: media.focus ?? { x: 0.5, y: 0.5 }, zoom: 1 } : null);
    // The pinch starts from where the first finger's drag had got to.
    this.gesture = {
      kind: 'pinch', item, start: this.fingers(), startFrame: { ...frame }, frame: { ...frame }, rotation: item.rotation,
      startCrop: crop, crop, moved: false, zoomCrop: this.store.cropMode && item.content.type === 'photo' && !!crop,
    };
  }

  pinchMove() {
    const gesture = this.gesture;
    const item = gesture.item;
    const now = this.fingers();
    const factor = Math.max(0.05, now.distance / Math.max(1, gesture.start.distance));
    gesture.moved = true;
    if (gesture.zoomCrop) {
      const base = gesture.startCrop;
      gesture.crop = { focus: base.focus, zoom: Math.round(Math.min(20, Math.max(1, base.zoom * factor)) * 1000) / 1000 };
    } else {
      const f = gesture.startFrame;
      const cx = f.x + f.width / 2, cy = f.y + f.height / 2;
      // No smaller than the least side allows, and in proportion: the short side stopping
      // alone at the least made a pinched-in photo another shape.
      const scale = Math.max(factor, this.store.app.minimumItemSide / Math.max(1, Math.min(f.width, f.height)));
      const width = f.width * scale, height = f.height * scale;
      gesture.frame = { x: cx - width / 2, y: cy - height / 2, width, height };
      gesture.rotation = ((item.rotation + now.angle - gesture.start.angle + 540) % 360) - 180;
    }
    this.editor.canvas.preview(item, gesture.frame, gesture.rotation, gesture.zoomCrop ? gesture.crop : item.crop);
  }

  pointerMove(event) {
    if (this.pointers.has(event.pointerId)) this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    const gesture = this.gesture;
    if (!gesture) return;
    if (gesture.kind === 'pinch') { if (this.pointers.size >= 2) this.pinchMove(); return; }
    if (gesture.pointer !== event.pointerId) return;
    const point = this.toPoints(event);
    const dx = point.x - gesture.start.x, dy = point.y - gesture.start.y;
    if (Math.abs(dx) + Math.abs(dy) > 1) gesture.moved = true;
    const item = gesture.item;
    const f = item.frame;
    if (gesture.kind === 'move') {
      // However far the pointer goes, the photo keeps a part on the canvas, as the edit must.
      gesture.frame = this.keptOnCanvas({ ...f, x: f.x + dx, y: f.y + dy });
      const { swapWith, slot } = this.dropAt(point, item);
      for (const element of $('canvas').querySelectorAll('.item')) {
        element.classList.toggle('drop-target', !!swapWith && element.dataset.id === swapWith.id);
      }
      for (const element of $('canvas').querySelectorAll('.slot-empty')) {
        element.classList.toggle('drop-target', Number(element.dataset.slot) === slot);
      }
    } else if (gesture.kind === 'resize') {
      const side = this.store.app.minimumItemSide;
      if (item.content.type === 'sticker' || (event.shiftKey && item.content.type === 'photo')) {
        // A sticker keeps its proportions, as a pinch keeps them: it is drawn fitted in its
        // frame, so a frame of another shape showed it stretched while the corner moved, then
        // small in a box too wide for it. A photo keeps them with Shift. The corner follows the
        // pointer along the side it moved the more for its length (along the diagonal, a tall
        // photo drawn sideways hardly changed).
        const across = (f.width + dx) / f.width, down = (f.height + dy) / f.height;
        const scale = Math.max(side / Math.max(1, Math.min(f.width, f.height)), Math.abs(across - 1) >= Math.abs(down - 1) ? across : down);
        gesture.frame = { ...f, width: f.width * scale, height: f.height * scale };
      } else {
        gesture.frame = { ...f, width: Math.max(side, f.width + dx), height: Math.max(side, f.height + dy) };
      }
    } else if (gesture.kind === 'rotate') {
      // The turn follows the pointer around the centre from where it was grabbed.
      const cx = f.x + f.width / 2, cy = f.y + f.height / 2;
      const angle = (p) => (Math.atan2(p.y - cy, p.x - cx) * 180) / Math.PI;
      let degrees = item.rotation + angle(point) - angle(gesture.start);
      if (event.shiftKey) degrees = Math.round(degrees / 15) * 15;
      gesture.rotation = ((degrees + 540) % 360) - 180;
    } else if (gesture.kind === 'pan') {
      const media = this.store.doc.media[item.content.ref];
      if (!media) return;
      const crop = item.crop ?? { focus: media.focus ?? { x: 0.5, y: 0.5 }, zoom: 1 };
      const source = sourceRect(media, f, crop);
      const perPoint = source.width / f.width;
      // A mirrored photo moves the other way in its source: the picture follows the finger.
      const sx = item.look?.flipHorizontal ? -1 : 1, sy = item.look?.flipVertical ? -1 : 1;
      gesture.crop = {
        zoom: crop.zoom,
        focus: {
          x: Math.min(1, Math.max(0, crop.focus.x - (sx * dx * perPoint) / media.width)),
          y: Math.min(1, Math.max(0, crop.focus.y - (sy * dy * perPoint) / media.height)),
        },
      };
    }
    this.editor.canvas.preview(item, gesture.frame, gesture.rotation, gesture.crop);
    // The photo being dragged floats above every other, so it is never lost behind one.
    if (gesture.kind === 'move' && gesture.moved) {
      $('canvas').querySelector(`.item[data-id="${CSS.escape(item.id)}"]`)?.classList.add('dragging');
    }
  }

  /**
   * What a drag of `item` would do if let go at `point`: fill an empty slot, trade places with
   * the photo there (in a layout: the template's slots, or a smart layout), or, for a laid-out
   * photo over bare canvas, go back to its place (`back`).
   */
  dropAt(point, item) {
    if (item.content.type !== 'photo') return {};
    const slot = this.emptySlotAt(point);
    if (slot !== null) return { slot };
    const laidOut = (candidate) => candidate.slot !== undefined || (!!this.store.collage.arrangement && candidate.content.type === 'photo');
    const target = this.itemAt(point, item.id);
    if (target?.content.type === 'photo' && laidOut(item) && laidOut(target)) return { swapWith: target };
    const f = item.frame;
    const inOwnPlace = point.x >= f.x && point.x <= f.x + f.width && point.y >= f.y && point.y <= f.y + f.height;
    if (laidOut(item) && !target && !inOwnPlace) return { back: true };
    return {};
  }

  /** `frame` moved as little as needed to keep the part of it on the canvas an edit requires. */
  keptOnCanvas(frame) {
    const keep = (this.store.app.minimumVisible ?? 20) + 1;
    const { width, height } = this.store.collage.canvas;
    return {
      ...frame,
      x: Math.min(width - keep, Math.max(keep - frame.width, frame.x)),
      y: Math.min(height - keep, Math.max(keep - frame.height, frame.y)),
    };
  }

  pointerUp(event) {
    this.pointers.delete(event.pointerId);
    const gesture = this.gesture;
    if (gesture?.kind !== 'pinch' && gesture?.pointer !== undefined && gesture.pointer !== event.pointerId) return;
    this.gesture = null;
    if (!gesture || !gesture.moved) { this.editor.toolbar.placeItemTools(); return; }
    const item = gesture.item;
    const round = (value) => Math.round(value * 100) / 100;
    if (gesture.kind === 'pinch') {
      const f = gesture.frame;
      if (gesture.zoomCrop) {
        this.store.commit([{ op: 'setCrop', id: item.id, crop: gesture.crop }]);
      } else {
        this.store.commit([
          { op: 'resizeItem', id: item.id, frame: { x: round(f.x), y: round(f.y), width: round(f.width), height: round(f.height) } },
          { op: 'rotateItem', id: item.id, degrees: round(gesture.rotation) },
        ]);
      }
      return;
    }
    if (gesture.kind === 'move') {
      const drop = this.dropAt(this.toPoints(event), item);
      if (drop.slot !== undefined) {
        this.store.commit([{ op: 'placeInSlot', id: item.id, slot: drop.slot }]);
      } else if (drop.swapWith) {
        this.store.commit([{ op: 'swapContents', first: item.id, second: drop.swapWith.id }]);
        // The frames stay and their photos trade places: the selection goes with the photo that
        // was dragged, now in the other frame (it stayed with the frame, on the other photo).
        this.store.select(drop.swapWith.id);
      } else if (drop.back) {
        this.editor.canvas.render();
      } else {
        this.store.commit([{ op: 'moveItem', id: item.id, origin: { x: round(gesture.frame.x), y: round(gesture.frame.y) } }]);
      }
    } else if (gesture.kind === 'resize') {
      const f = gesture.frame;
      this.store.commit([{ op: 'resizeItem', id: item.id, frame: { x: round(f.x), y: round(f.y), width: round(f.width), height: round(f.height) } }]);
    } else if (gesture.kind === 'rotate') {
      this.store.commit([{ op: 'rotateItem', id: item.id, degrees: round(gesture.rotation) }]);
    } else if (gesture.kind === 'pan') {
      this.store.commit([{ op: 'setCrop', id: item.id, crop: gesture.crop }]);
    }
  }

  /** The empty layout slot under a point (canvas points), or null. */
  emptySlotAt(point) {
    const filled = new Set(this.store.collage.items.map((item) => item.slot).filter((slot) => slot !== undefined));
    const index = (this.store.doc.layout?.slots ?? []).findIndex((frame, slot) => !filled.has(slot)
      && point.x >= frame.x && point.x <= frame.x + frame.width && point.y >= frame.y && point.y <= frame.y + frame.height);
    return index < 0 ? null : index;
  }

  wheel(event) {
    const element = event.target.closest('.item');
    const item = element && this.store.collage.items.find((candidate) => candidate.id === element.dataset.id);
    if (!item || item.id !== this.store.selected || item.content.type !== 'photo') return;
    event.preventDefault();
    // A zoom on another photo first saves the one under way.
    if (this.pendingZoom && this.pendingZoom.id !== item.id) this.flushZoom();
    const media = this.store.doc.media[item.content.ref];
    const crop = this.pendingZoom?.crop ?? item.crop ?? { focus: media?.focus ?? { x: 0.5, y: 0.5 }, zoom: 1 };
    const zoom = Math.min(20, Math.max(1, crop.zoom * (event.deltaY < 0 ? 1.1 : 1 / 1.1)));
    this.pendingZoom = { id: item.id, crop: { focus: crop.focus, zoom: Math.round(zoom * 1000) / 1000 } };
    this.editor.canvas.preview(item, item.frame, item.rotation, this.pendingZoom.crop);
    clearTimeout(this.wheelTimer);
    this.wheelTimer = setTimeout(() => this.flushZoom(), 350);
  }

  /** Saves the wheel zoom that is waiting for the wheel to stop. */
  flushZoom() {
    clearTimeout(this.wheelTimer);
    const pending = this.pendingZoom;
    this.pendingZoom = null;
    if (pending) this.store.commit([{ op: 'setCrop', id: pending.id, crop: pending.crop }]);
  }

  key(event) {
    if (event.target.closest('input, select, textarea, dialog')) return;
    // Behind a modal dialog the collage is out of reach: a key pressed while the dialog's focus
    // fell to the page (a button that disabled itself) must not move or delete what lies behind.
    if (document.querySelector('dialog:modal')) return;
    const mod = event.ctrlKey || event.metaKey;
    if (mod && event.key.toLowerCase() === 'z') {
      event.preventDefault();
      if (event.shiftKey) this.store.redo(); else this.store.undo();
      return;
    }
    if (mod && event.key.toLowerCase() === 'y') { event.preventDefault(); this.store.redo(); return; }
    if (event.key === 'Escape') {
      if (this.editor.lifter.cancelLifting()) return;
      // Escape leaves a mode first (lifting, cropping), and only then lets go of the selection.
      if (this.store.liftMode || this.store.cropMode) { this.editor.lifter.stopLiftMode(); this.editor.toolbar.setCropMode(false); return; }
      this.store.select(null);
      return;
    }
    if (event.key === 'Enter' && this.store.liftMode && !event.target.closest('button:not(#lift), a')) {
      event.preventDefault();
      this.editor.lifter.liftAt(this.store.selectedItem(), null);
      return;
    }
    const item = this.store.selectedItem();
    if (!item) return;
    if (event.key === 'Enter' && item.content.type === 'text' && !event.target.closest('button, a, [role=toolbar]')) {
      event.preventDefault();
      this.editor.text.startTextEditing(item.id);
      return;
    }
    if (mod && event.key.toLowerCase() === 'd') {
      // The browser's own Ctrl/Cmd-D (a bookmark) would take the keys away from the canvas.
      event.preventDefault();
      this.editor.toolbar.duplicateSelected();
      return;
    }
    // Item keys act on the item the keyboard is on (or the canvas, after a click), never while a
    // button or link has focus: Delete on a focused toolbar button must not remove a photo.
    if (event.target.closest('button, a, [role=toolbar]')) return;
    if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      this.editor.toolbar.deleteSelected();
      return;
    }
    if (event.shiftKey && !mod && (event.key === 'H' || event.key === 'V')) {
      event.preventDefault();
      this.editor.panels.flipSelected(event.key === 'H' ? 'flipHorizontal' : 'flipVertical');
      return;
    }
    const id = item.id;
    const latest = (doc) => doc.collage.items.find((candidate) => candidate.id === id);
    const round = (value) => Math.round(value * 100) / 100;
    if (event.key === '[' || event.key === ']' || event.key === '{' || event.key === '}') {
      event.preventDefault();
      const turn = (event.key === '[' || event.key === '{' ? -1 : 1) * (event.shiftKey ? 15 : 5);
      this.store.commit((doc) => latest(doc) && [{ op: 'rotateItem', id, degrees: latest(doc).rotation + turn }]);
      return;
    }
    if (event.key === '-' || event.key === '=' || event.key === '+') {
      event.preventDefault();
      const factor = event.key === '-' ? 1 / 1.05 : 1.05;
      const side = this.store.app.minimumItemSide;
      this.store.commit((doc) => {
        const f = latest(doc)?.frame;
        if (!f) return null;
        const scale = Math.max(factor, side / Math.max(1, Math.min(f.width, f.height)));
        const width = f.width * scale, height = f.height * scale;
        return [{
          op: 'resizeItem', id,
          frame: { x: round(f.x + (f.width - width) / 2), y: round(f.y + (f.height - height) / 2), width: round(width), height: round(height) },
        }];
      });
      return;
    }
    const step = event.shiftKey ? 10 : 1;
    const moves = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (moves[event.key]) {
      event.preventDefault();
      const [dx, dy] = moves[event.key];
      // Each press moves from where the last one left the item, however fast keys repeat.
      this.store.commit((doc) => {
        const f = latest(doc)?.frame;
        if (!f) return null;
        const kept = this.keptOnCanvas({ ...f, x: f.x + dx, y: f.y + dy });
        return kept.x === f.x && kept.y === f.y ? null : [{ op: 'moveItem', id, origin: { x: kept.x, y: kept.y } }];
      });
    }
  }
}
