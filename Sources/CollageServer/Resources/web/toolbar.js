// The toolbar, the selected item's floating tools and the page's chrome around the canvas:
// title, undo and redo, order, delete, replace, crop and lift, uploads, and what shows when a
// collage cannot be opened.
import { api, setStatus } from './api.js';
import { $, newID, showUploadProgress, toast, toastUploadFailures } from './ui.js';

/** The toolbar and the selected item's floating tools, each press an intent to the store. */
export class Toolbar {
  /** A view of the editor's store; `editor` names the other views it works with. */
  constructor(store, editor) {
    this.store = store;
    this.editor = editor;
  }

  /** The page's elements outlive an editor: a mode, a hint or a banner left by the last one goes. */
  resetSharedState() {
    $('canvas').classList.remove('lift-mode', 'crop-mode');
    $('mode-hint').hidden = true;
    $('tray-target').hidden = true;
    $('crop').setAttribute('aria-pressed', 'false');
    $('editor-missing').hidden = true;
    $('canvas').classList.remove('previewing');
    $('canvas').inert = false;
    $('preview-banner').hidden = true;
  }

  /** Every tool on or off: nothing can be pressed while no collage is open. */
  setControlsEnabled(enabled) {
    for (const control of document.querySelectorAll('#editor-view :is(.toolbar, .panel) :is(button, input, select)')) {
      control.disabled = !enabled;
    }
    $('canvas').hidden = !enabled;
    $('panel').hidden = !enabled;
    if (!enabled) $('item-tools').hidden = true;
  }

  /** What the person sees instead of a canvas when the collage cannot be opened. */
  showUnavailable(error) {
    $('editor-missing').hidden = false;
    document.title = 'Collage not found — Collage';
    $('editor-missing-title').textContent =
      error.status === 404 ? 'This collage is not in your library' : 'This collage cannot be opened';
    $('editor-missing-text').textContent =
      error.status === 404 ? 'It may have been deleted, or the link is mistyped.' : error.message;
    setStatus(error.status === 404 ? 'Collage not found' : error.message, 'error');
  }

  setUpToolbar() {
    this.store.listen(window, 'toasts-changed', () => this.placeItemTools());
    // A tap that selects an item draws its tools at once, and on a phone they can land under the
    // finger: the click that ends the tap then pressed the button drawn there (Replace opened by
    // itself). A button of the tools takes no click that ends a press begun elsewhere a moment
    // before; a click from the keyboard (detail 0) or from assistive technology (no press) is
    // its own.
    let pressed = null;
    let pressedAt = 0;
    this.store.listen(document, 'pointerdown', (event) => {
      pressed = event.target;
      pressedAt = event.timeStamp;
    }, { capture: true });
    this.store.listen($('item-tools'), 'click', (event) => {
      const button = event.target.closest('button');
      const ghost = button && event.detail > 0 && pressed && !button.contains(pressed)
        && event.timeStamp - pressedAt < 1500;
      if (!ghost) return;
      event.stopImmediatePropagation();
      event.preventDefault();
    }, { capture: true });
    // The skip link puts the keyboard on the first item (or the canvas when it is empty), not
    // on the page's hash.
    this.store.listen($('skip-to-canvas'), 'click', (event) => {
      event.preventDefault();
      const first = $('canvas').querySelector('.item');
      (first ?? $('canvas')).focus();
    });
    const collage = this.store.collage;
    const title = $('title-input');
    title.value = collage.title;
    // Saved after a pause in typing, as a text on the canvas is: saved only on Enter or on
    // leaving the box, the words were lost to a reload while the status said all was saved.
    this.titleSent = collage.title;
    this.store.listen(title, 'input', () => {
      clearTimeout(this.titleTimer);
      setStatus('Editing…');
      this.titleTimer = setTimeout(() => this.saveTitle(), 700);
    });
    this.store.listen(title, 'change', () => this.saveTitle({ final: true }));
    this.store.listen(title, 'keydown', (event) => { if (event.key === 'Enter') title.blur(); });
    this.store.listen($('undo'), 'click', () => this.store.undo());
    this.store.listen($('redo'), 'click', () => this.store.redo());
    this.store.listen($('forward'), 'click', () => this.store.selected && this.store.commit([{ op: 'reorder', id: this.store.selected, move: 'forward' }]));
    this.store.listen($('backward'), 'click', () => this.store.selected && this.store.commit([{ op: 'reorder', id: this.store.selected, move: 'backward' }]));
    this.store.listen($('delete-item'), 'click', () => this.deleteSelected());
    this.store.listen($('duplicate-item'), 'click', () => this.duplicateSelected());
    this.store.listen($('shape-item'), 'click', () => this.editor.frame.reveal('shape'));
    this.store.listen($('frame-item'), 'click', () => this.editor.frame.reveal('frame'));
    this.store.listen($('flip-item'), 'click', () => this.editor.panels.flipSelected('flipHorizontal'));
    this.store.listen($('replace'), 'click', () => {
      const item = this.store.selectedItem();
      if (item) this.editor.panels.setTrayTarget({ replace: item.id }, 'Choose the photo to put in its place');
    });
    this.store.listen($('crop'), 'click', () => this.setCropMode(!this.store.cropMode));
    this.store.listen($('file-input'), 'change', (event) => {
      const files = [...event.target.files];
      event.target.value = '';
      if (files.length) this.addPhotos(files, this.store.trayTarget);
    });
    this.store.listen($('export-button'), 'click', () => this.editor.dialogs.openExport());
    this.store.listen($('lift'), 'click', () => this.editor.lifter.startLift());
    this.store.listen($('lift-every'), 'click', () => this.editor.lifter.liftAt(this.store.selectedItem(), null));
    this.store.listen($('lift-cancel'), 'click', () => this.editor.lifter.stopLiftMode());
  }

  /** Adds a copy of the selected item just above it, a step away, and selects the copy. */
  async duplicateSelected() {
    const item = this.store.selectedItem();
    if (!item) return;
    const id = newID();
    await this.store.commit([{ op: 'duplicateItem', id: item.id, newID: id }]);
    if (!this.store.closed && this.store.collage.items.some((candidate) => candidate.id === id)) this.store.select(id);
  }

  /** Deletes the selected item; the message in the corner can take it back. */
  async deleteSelected() {
    const item = this.store.selectedItem();
    if (!item) return;
    this.store.select(null);
    this.setCropMode(false);
    await this.store.commit([{ op: 'removeItem', id: item.id }]);
    if (this.store.closed || this.store.collage.items.some((candidate) => candidate.id === item.id)) return;
    // Undo here takes back this delete only: after any other change it would undo that one.
    const version = this.store.doc.version;
    const kind = { photo: 'Photo', sticker: 'Sticker', text: 'Text' }[item.content.type] ?? 'Item';
    toast(`${kind} deleted`, 'info', {
      label: 'Undo', timeout: 8000,
      run: () => {
        if (this.store.closed || this.store.doc.version !== version) {
          toast('The collage changed since: use Undo in the toolbar to step back through the changes', 'error');
          return;
        }
        this.store.undo().then(() => this.store.select(item.id));
      },
    });
  }

  /** Crop mode: dragging the selected photo moves the picture inside its frame, not the frame. */
  setCropMode(on) {
    this.store.setMode('crop', on);
    $('canvas').classList.toggle('crop-mode', this.store.cropMode);
    $('crop').setAttribute('aria-pressed', String(this.store.cropMode));
    this.showModeHint();
  }

  /** The hint beside the selected photo while a mode (lift, crop) changes what a click does. */
  showModeHint() {
    const hint = $('mode-hint');
    const touch = window.matchMedia('(pointer: coarse)').matches;
    let text = '';
    if (this.store.liftMode) {
      text = touch ? 'Tap the subject to lift it' : 'Click the subject to lift it · Enter lifts every subject · Esc cancels';
    } else if (this.store.cropMode) {
      text = 'Drag to move the photo in its frame · scroll or pinch to zoom · Esc when done';
    }
    // Only the words change: the buttons stay, so a click that lands as the toolbar is drawn
    // again (as every press does) still reaches them.
    $('mode-hint-text').textContent = text;
    // A finger has no Enter or Escape: lift mode offers both as buttons (to the mouse too).
    $('lift-actions').hidden = !this.store.liftMode;
    hint.hidden = !text;
    if (!text) return;
    if (this.editor.panels.isPhone()) {
      // Just above the tools at the foot of the stage: beside the photo it covered the subject
      // to be tapped.
      const tools = $('item-tools'), stage = $('stage');
      const foot = tools.hidden ? stage.clientHeight - 8 : tools.offsetTop - 8;
      const left = Math.max(8, Math.floor((stage.clientWidth - hint.offsetWidth) / 2));
      Object.assign(hint.style, { left: `${left}px`, top: `${foot - hint.offsetHeight}px` });
    } else {
      this.placeBeside(hint, this.store.selectedItem(), 'below', undefined, undefined, $('item-tools'));
      this.moveAsideOffSelection(hint);
    }
  }

  /**
   * Moves a floating element placed on the selected item (no room above or below it: a phone
   * on its side, a photo as tall as the stage) to its right or left, where the stage has room:
   * lift mode's hint covered the subject to be tapped.
   */
  moveAsideOffSelection(element) {
    const item = $('canvas').querySelector('.selection')?.getBoundingClientRect();
    if (!item) return;
    const stage = $('stage').getBoundingClientRect();
    const box = element.getBoundingClientRect();
    const overlaps = box.left < item.right && box.right > item.left && box.top < item.bottom && box.bottom > item.top;
    if (!overlaps) return;
    const top = Math.min(Math.max(8, (item.top + item.bottom) / 2 - stage.top - box.height / 2), stage.height - box.height - 8);
    if (item.right + 12 + box.width <= stage.right - 8) {
      Object.assign(element.style, { left: `${item.right + 12 - stage.left}px`, top: `${top}px` });
    } else if (item.left - 12 - box.width >= stage.left + 8) {
      Object.assign(element.style, { left: `${item.left - 12 - box.width - stage.left}px`, top: `${top}px` });
    }
  }

  /**
   * Sends the title typed, when it is new. While typing, an empty box waits for words; once
   * the box is left (`final`), the server judges it as it judges any title.
   */
  saveTitle({ final = false, leaving = false } = {}) {
    clearTimeout(this.titleTimer);
    this.titleTimer = 0;
    const title = $('title-input')?.value;
    if (title === undefined || this.store.closed || title === this.titleSent || (!final && !title.trim())) {
      this.editor.typingSettled();
      return;
    }
    this.titleSent = title;
    if (leaving) {
      // The page is going: sent at once, outside the queue (whose answers will never come), by
      // the rename that needs no version.
      api.rename(this.store.id, title, { keepalive: true }).catch(() => {});
      return;
    }
    this.store.commit([{ op: 'rename', title }]).then(() => {
      // Refused, or another window's title kept: the box may send these words again.
      if (!this.store.closed && this.store.collage.title !== title) this.titleSent = this.store.collage.title;
    });
  }

  /** Whether the title typed waits for its pause to be saved. */
  titleWaiting() { return !!this.titleTimer; }

  updateToolbar() {
    if (this.store.closed) return;
    const collage = this.store.collage;
    if (document.activeElement !== $('title-input')) {
      $('title-input').value = collage.title;
      this.titleSent = collage.title;
    }
    $('undo').disabled = !this.store.doc.history?.canUndo;
    $('redo').disabled = !this.store.doc.history?.canRedo;
    const item = this.store.selectedItem();
    for (const id of ['forward', 'backward', 'delete-item']) $(id).disabled = !item;
    $('flip-item').hidden = !item || item.content.type === 'text';
    $('flip-item').setAttribute('aria-pressed', String(!!item?.look?.flipHorizontal));
    const photo = item?.content.type === 'photo';
    $('replace').hidden = !photo;
    $('crop').hidden = !photo;
    $('shape-item').hidden = !photo;
    $('frame-item').hidden = !photo;
    $('refine-item').hidden = item?.content.type !== 'sticker';
    $('lift').hidden = !photo || !this.store.app.stickers;
    $('lift').disabled = !photo || !this.store.app.stickers || !!this.editor.lifter.lifting;
    if (!photo && this.store.cropMode) this.setCropMode(false);
    this.editor.panels.updatePanel();
    this.placeItemTools();
  }

  /** The selected item's tools float just above it (below when there is no room), in the stage. */
  placeItemTools(frame, rotation) {
    const tools = $('item-tools');
    const item = this.store.selectedItem();
    tools.hidden = !item || !!this.editor.gestures.gesture?.moved;
    if (!tools.hidden) {
      // Where the tools with their words are wider than the stage (a tablet beside its panel),
      // they show their icons only, so none reaches past the stage.
      tools.classList.remove('compact');
      if (this.editor.panels.isPhone()) {
        // On a phone they lie along the foot of the stage, under the canvas (see the styles).
        const stage = $('stage');
        const left = Math.max(8, Math.floor((stage.clientWidth - tools.offsetWidth) / 2));
        Object.assign(tools.style, { left: `${left}px`, top: `${stage.clientHeight - tools.offsetHeight - 8}px` });
      } else if (this.editor.panels.isLying()) {
        // On a phone on its side they stand in two columns at the stage's right edge, beside the
        // canvas: floating over it, they covered most of a collage 188 px high.
        const stage = $('stage');
        const top = Math.max(8, Math.floor((stage.clientHeight - tools.offsetHeight) / 2));
        Object.assign(tools.style, { left: `${stage.clientWidth - tools.offsetWidth - 8}px`, top: `${top}px` });
      } else {
        if (tools.offsetWidth > $('stage').clientWidth - 16) tools.classList.add('compact');
        // Off the messages too, where they hang in the stage.
        this.placeBeside(tools, item, 'above', frame, rotation, $('toasts'));
      }
    }
    if (this.store.liftMode || this.store.cropMode) this.showModeHint();
  }

  /**
   * Puts a floating element beside an item's turned frame, kept inside the stage and, when
   * `avoid` (another floating element) is showing, off it.
   */
  placeBeside(element, item, side, frame = item?.frame, rotation = item?.rotation ?? 0, avoid = null) {
    if (!item) return;
    const stage = $('stage').getBoundingClientRect();
    const canvas = $('canvas').getBoundingClientRect();
    const scale = this.editor.canvas.viewScale;
    const radians = (rotation * Math.PI) / 180;
    const w = frame.width * scale, h = frame.height * scale;
    const halfW = (Math.abs(w * Math.cos(radians)) + Math.abs(h * Math.sin(radians))) / 2;
    const halfH = (Math.abs(w * Math.sin(radians)) + Math.abs(h * Math.cos(radians))) / 2;
    const cx = canvas.left - stage.left + (frame.x + frame.width / 2) * scale;
    const cy = canvas.top - stage.top + (frame.y + frame.height / 2) * scale;
    // Below, past the turn handle and its finger-sized reach.
    const gap = side === 'above' ? 12 : 46;
    const width = element.offsetWidth, height = element.offsetHeight;
    let top = side === 'above' ? cy - halfH - gap - height : cy + halfH + gap;
    if (side === 'above' && top < 8) top = cy + halfH + 46;
    if (side === 'below' && top + height > stage.height - 8) top = cy - halfH - gap - height;
    top = Math.min(Math.max(8, top), stage.height - height - 8);
    const left = Math.min(Math.max(8, cx - width / 2), stage.width - width - 8);
    if (avoid && !avoid.hidden) {
      // Where the other element lies in the stage, whether it is placed in it or fixed to the window.
      const box = avoid.getBoundingClientRect();
      const other = { top: box.top - stage.top, bottom: box.bottom - stage.top, left: box.left - stage.left, right: box.right - stage.left };
      const across = left < other.right + 6 && left + width > other.left - 6;
      const clearOf = (at) => at + height <= other.top - 6 || at >= other.bottom + 6 || !across;
      if (box.height > 0 && !clearOf(top)) {
        top = other.top > stage.height / 2 ? other.top - height - 8 : other.bottom + 8;
        // Pushed past the messages onto the item itself (a sticker just lifted, under "Sticker
        // added"), the element goes to the item's other side when that side has room.
        const onItem = top < cy + halfH && top + height > cy - halfH;
        const fits = (at) => at >= 8 && at + height <= stage.height - 8 && clearOf(at);
        // Below, past the turn handle and its finger-sized reach.
        const below = cy + halfH + 46, above = cy - halfH - 12 - height;
        if (onItem && fits(below)) top = below;
        else if (onItem && fits(above)) top = above;
      }
    }
    top = Math.min(Math.max(8, top), stage.height - height - 8);
    // Pushed onto the item by the stage's edge (an item as tall as a tablet's stage), the element
    // keeps off the resize and turn handles at the item's foot and their finger-sized reach:
    // it sits inside the item, above them.
    // (Only the tools: a hint placed below the item is clear of the handles already.)
    const foot = cy + halfH;
    if (side === 'above' && top + height > foot - 24 && top < foot + 46 && foot - 24 - height >= 8) {
      top = foot - 24 - height;
    }
    Object.assign(element.style, { left: `${left}px`, top: `${top}px` });
  }

  /**
   * Uploads files and adds them: into the slot or in place of the photo they were meant for
   * (`target`, as the tray's: `{slot}` or `{replace}`), else as a tap on the tray adds them.
   */
  async addPhotos(files, target = null) {
    const progress = $('upload-progress');
    progress.hidden = false;
    $('upload-text').textContent = `Uploading ${files.length} photo${files.length === 1 ? '' : 's'}…`;
    try {
      const result = await api.upload(files, showUploadProgress(progress, files, (fraction) => { $('upload-bar').value = Math.round(fraction * 100); }));
      toastUploadFailures(result);
      const photos = [...(result.photos ?? [])];
      this.editor.panels.clearTrayTarget();
      if (photos.length) this.editor.panels.loadTray();
      if (photos.length && target?.replace) await this.editor.panels.replacePhoto(target.replace, photos.shift().id);
      const edits = photos.map((photo) => ({ op: 'addItem', id: newID(), content: { type: 'photo', ref: photo.id } }));
      if (edits.length && target?.slot !== undefined) edits.splice(1, 0, { op: 'placeInSlot', id: edits[0].id, slot: target.slot });
      if (edits.length) await this.store.commit(edits);
      if (result.photos?.length) {
        const added = result.photos.length;
        toast(`Added ${added} photo${added === 1 ? '' : 's'}`, 'success');
      }
    } catch (error) {
      setStatus(`Upload failed: ${error.message}`, 'error');
      toast(`Upload failed: ${error.message}`, 'error');
    } finally {
      progress.hidden = true;
      $('upload-bar').value = 0;
    }
  }
}
