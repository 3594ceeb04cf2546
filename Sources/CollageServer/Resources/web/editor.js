// The editor: holds the open collage and its selection, saves every change through the API
// (autosave) at the version it last saw, and walks the library's undo history. Drawing,
// gestures, dialogs and lifting live in their own modules, mixed in below.
import { api, setStatus } from './api.js';
import { CanvasView } from './canvas-view.js';
import { Dialogs } from './dialogs.js';
import { Gestures } from './gestures.js';
import { loadLicence } from './licence.js';
import { Lifting } from './lift.js';
import { mergeable } from './merge.js';
import { Panels } from './panel.js';
import { Premium } from './premium.js';
import { TextEditing } from './text.js';
import { $, mixin, newID, toast, toastUploadFailures } from './ui.js';

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
    this.closed = false;
    /** Styled sticker images: by look, the one each item shows, and the requests under way. */
    this.stickerPixels = { drawn: new Map(), latest: new Map(), pending: new Map() };
  }

  listen(target, type, handler, options) {
    target.addEventListener(type, handler, options);
    this.listeners.push(() => target.removeEventListener(type, handler, options));
  }

  /** Stops this editor: work still under way (a save, a lift, an upload) finishes without drawing. */
  close() {
    this.finishTextEditing();
    this.closed = true;
    clearTimeout(this.focusTimer);
    this.previewing = null;
    for (const remove of this.listeners) remove();
    this.listeners = [];
    for (const drawn of this.stickerPixels.drawn.values()) URL.revokeObjectURL(drawn.url);
    this.stickerPixels.drawn.clear();
    this.stickerPixels.latest.clear();
  }

  async open() {
    this.resetSharedState();
    this.setControlsEnabled(false);
    try {
      this.doc = await api.collage(this.id);
    } catch (error) {
      if (!this.closed) this.showUnavailable(error);
      return;
    }
    // The person may have gone to another collage while this one loaded.
    if (this.closed) return;
    this.setControlsEnabled(true);
    document.title = `${this.doc.collage.title} — Collage`;
    this.setUpToolbar();
    this.setUpPanel();
    this.setUpPremium();
    this.setUpText();
    this.setUpCanvas();
    this.render();
    setStatus('All changes saved');
    this.watchPendingFocus();
  }

  get collage() { return this.doc.collage; }

  /** Takes the server's latest crops now (before an export), when nothing else changed the collage. */
  async catchUpOnFocus() {
    const latest = await api.collage(this.id).catch(() => null);
    if (!latest || this.closed || this.gesture || this.previewing || latest.version !== this.doc.version) return;
    this.doc = latest;
    this.render();
    this.watchPendingFocus();
  }

  /**
   * A photo the server has not analysed yet is shown centred, as exports draw it now; once the
   * background analysis finds its subject, both crop around it. The page asks again every few
   * seconds until then, taking the answer only when nothing else changed the collage meanwhile.
   */
  watchPendingFocus() {
    clearTimeout(this.focusTimer);
    const pending = (doc) => Object.values(doc?.media ?? {}).filter((media) => media.focusPending).length;
    // How many photos the canvas shows centred for now (tests wait for none before comparing).
    $('canvas').dataset.focusPending = String(this.closed ? 0 : pending(this.doc));
    if (this.closed || !pending(this.doc)) return;
    this.focusTimer = setTimeout(() => {
      this.saving = this.saving.then(async () => {
        if (this.closed) return;
        try {
          const latest = await api.collage(this.id);
          const busy = this.gesture || this.previewing || this.textEditing;
          if (!this.closed && !busy && latest.version === this.doc.version
              && pending(latest) < pending(this.doc)) {
            this.doc = latest;
            this.render();
          }
        } catch {
          // The next change asks again.
        }
        this.watchPendingFocus();
      });
    }, 1500);
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

  /**
   * Queues one change for the server (edits, an undo, a redo). `send` runs when the changes
   * before it are done, so it names the version they left; it returns the request, or nothing
   * when there is nothing to send. The server's document comes back and is drawn; a stale
   * version brings the latest document instead.
   */
  save(send) {
    // A change is made to the saved collage, never to a layout being tried.
    this.endPreview();
    this.saving = this.saving.then(async () => {
      if (this.closed) return;
      const request = send();
      if (!request) return;
      setStatus('Saving…');
      try {
        this.doc = await request;
        setStatus('All changes saved');
        this.watchPendingFocus();
      } catch (error) {
        if (error.status === 409 && error.body?.error?.current) {
          this.doc = error.body.error.current;
          const clash = error.clash ? ` ${error.clash}` : '';
          setStatus('This collage changed elsewhere; showing the latest version', 'error');
          toast(`This collage changed in another window, and your last change touched the same thing.${clash} `
            + 'Kept: the other window\'s version, shown now.', 'error');
        } else if (error.status === 402) {
          // Premium was locked elsewhere (the licence removed): the page learns it and says so.
          setStatus('Not saved: that layout needs Collage Premium', 'error');
          toast('Not saved: that layout needs Collage Premium, which is not unlocked on this computer', 'error');
          loadLicence().catch(() => {});
        } else {
          setStatus(`Not saved: ${error.message}`, 'error');
          toast(`Not saved: ${error.message}`, 'error');
        }
      }
      this.render();
    }).catch((error) => {
      // A failure outside the request (drawing, say) must not stop every later save.
      setStatus(`Something went wrong: ${error.message}`, 'error');
    });
    return this.saving;
  }

  /**
   * Sends edits at the current version. When another tab saved first, edits that touch other
   * things (another item, another style field) are sent again on top of its version, so both
   * changes are kept; only a real clash falls back to showing the newer version.
   */
  commit(edits) {
    return this.save(async () => {
      const base = this.doc;
      // A function builds its edits from the document as the saves before it left it, so
      // quick key presses and slider moves each start from the last one's result.
      if (typeof edits === 'function') edits = edits(base);
      if (!edits?.length) return base;
      try {
        return await api.edit(this.id, base.version, edits);
      } catch (error) {
        const current = error.status === 409 ? error.body?.error?.current : null;
        if (!current) throw error;
        const merge = mergeable(edits, base.collage, current.collage);
        if (!merge.ok) { error.clash = merge.reason; throw error; }
        const merged = await api.edit(this.id, current.version, merge.edits);
        toast('Merged with a change made in another window: both are kept');
        return merged;
      }
    });
  }

  /**
   * Undo and redo walk the collage's history in the library (one history for every tab, the
   * command line too, and it survives a restart), at the version this page last saw.
   */
  travel(direction) {
    return this.save(() => (this.doc.history?.[direction === 'undo' ? 'canUndo' : 'canRedo']
      ? api[direction](this.id, this.doc.version) : null));
  }

  undo() { return this.travel('undo'); }

  redo() { return this.travel('redo'); }

  select(id) {
    if (this.textEditing && this.textEditing.id !== id) this.finishTextEditing();
    this.selected = id;
    for (const element of $('canvas').querySelectorAll('.item')) {
      element.classList.toggle('selected', element.dataset.id === id);
    }
    this.drawSelection();
    this.updateToolbar();
  }

  selectedItem() { return this.collage.items.find((item) => item.id === this.selected) ?? null; }

  setUpToolbar() {
    // The skip link puts the keyboard on the first item (or the canvas when it is empty), not
    // on the page's hash.
    this.listen($('skip-to-canvas'), 'click', (event) => {
      event.preventDefault();
      const first = $('canvas').querySelector('.item');
      (first ?? $('canvas')).focus();
    });
    const collage = this.collage;
    const title = $('title-input');
    title.value = collage.title;
    this.listen(title, 'change', () => this.commit([{ op: 'rename', title: title.value }]));
    this.listen(title, 'keydown', (event) => { if (event.key === 'Enter') title.blur(); });
    this.listen($('undo'), 'click', () => this.undo());
    this.listen($('redo'), 'click', () => this.redo());
    this.listen($('forward'), 'click', () => this.selected && this.commit([{ op: 'reorder', id: this.selected, move: 'forward' }]));
    this.listen($('backward'), 'click', () => this.selected && this.commit([{ op: 'reorder', id: this.selected, move: 'backward' }]));
    this.listen($('delete-item'), 'click', () => this.deleteSelected());
    this.listen($('replace'), 'click', () => {
      const item = this.selectedItem();
      if (item) this.setTrayTarget({ replace: item.id }, 'Choose the photo to put in its place');
    });
    this.listen($('crop'), 'click', () => this.setCropMode(!this.cropMode));
    this.listen($('file-input'), 'change', (event) => {
      const files = [...event.target.files];
      event.target.value = '';
      if (files.length) this.addPhotos(files, this.trayTarget);
    });
    this.listen($('export-button'), 'click', () => this.openExport());
    this.listen($('lift'), 'click', () => this.startLift());
  }

  /** Deletes the selected item; the message in the corner can take it back. */
  async deleteSelected() {
    const item = this.selectedItem();
    if (!item) return;
    this.selected = null;
    this.setCropMode(false);
    await this.commit([{ op: 'removeItem', id: item.id }]);
    if (this.closed || this.collage.items.some((candidate) => candidate.id === item.id)) return;
    // Undo here takes back this delete only: after any other change it would undo that one.
    const version = this.doc.version;
    const kind = { photo: 'Photo', sticker: 'Sticker', text: 'Text' }[item.content.type] ?? 'Item';
    toast(`${kind} deleted`, 'info', {
      label: 'Undo', timeout: 8000,
      run: () => {
        if (this.closed || this.doc.version !== version) {
          toast('The collage changed since: use Undo in the toolbar to step back through the changes', 'error');
          return;
        }
        this.undo().then(() => this.select(item.id));
      },
    });
  }

  /** Crop mode: dragging the selected photo moves the picture inside its frame, not the frame. */
  setCropMode(on) {
    const item = this.selectedItem();
    this.cropMode = on && item?.content.type === 'photo';
    $('canvas').classList.toggle('crop-mode', this.cropMode);
    $('crop').setAttribute('aria-pressed', String(this.cropMode));
    this.showModeHint();
  }

  /** The hint beside the selected photo while a mode (lift, crop) changes what a click does. */
  showModeHint() {
    const hint = $('mode-hint');
    const text = this.liftMode
      ? 'Click the subject to lift it · Enter lifts every subject · Esc cancels'
      : this.cropMode ? 'Drag to move the photo in its frame · scroll or pinch to zoom · Esc when done' : '';
    hint.textContent = text;
    hint.hidden = !text;
    if (text) this.placeBeside(hint, this.selectedItem(), 'below', undefined, undefined, $('item-tools'));
  }

  updateToolbar() {
    if (this.closed) return;
    const collage = this.collage;
    if (document.activeElement !== $('title-input')) $('title-input').value = collage.title;
    $('undo').disabled = !this.doc.history?.canUndo;
    $('redo').disabled = !this.doc.history?.canRedo;
    const item = this.selectedItem();
    for (const id of ['forward', 'backward', 'delete-item']) $(id).disabled = !item;
    const photo = item?.content.type === 'photo';
    $('replace').hidden = !photo;
    $('crop').hidden = !photo;
    $('lift').hidden = !photo || !this.app.stickers;
    $('lift').disabled = !photo || !this.app.stickers || !!this.lifting;
    if (!photo && this.cropMode) this.setCropMode(false);
    this.updatePanel();
    this.placeItemTools();
  }

  /** The selected item's tools float just above it (below when there is no room), in the stage. */
  placeItemTools(frame, rotation) {
    const tools = $('item-tools');
    const item = this.selectedItem();
    tools.hidden = !item || !!this.gesture?.moved;
    if (!tools.hidden) this.placeBeside(tools, item, 'above', frame, rotation);
    if (this.liftMode || this.cropMode) this.showModeHint();
  }

  /**
   * Puts a floating element beside an item's turned frame, kept inside the stage and, when
   * `avoid` (another floating element) is showing, off it.
   */
  placeBeside(element, item, side, frame = item?.frame, rotation = item?.rotation ?? 0, avoid = null) {
    if (!item) return;
    const stage = $('stage').getBoundingClientRect();
    const canvas = $('canvas').getBoundingClientRect();
    const scale = this.viewScale;
    const radians = (rotation * Math.PI) / 180;
    const w = frame.width * scale, h = frame.height * scale;
    const halfW = (Math.abs(w * Math.cos(radians)) + Math.abs(h * Math.sin(radians))) / 2;
    const halfH = (Math.abs(w * Math.sin(radians)) + Math.abs(h * Math.cos(radians))) / 2;
    const cx = canvas.left - stage.left + (frame.x + frame.width / 2) * scale;
    const cy = canvas.top - stage.top + (frame.y + frame.height / 2) * scale;
    const gap = side === 'above' ? 12 : 40;
    const width = element.offsetWidth, height = element.offsetHeight;
    let top = side === 'above' ? cy - halfH - gap - height : cy + halfH + gap;
    if (side === 'above' && top < 8) top = cy + halfH + 40;
    if (side === 'below' && top + height > stage.height - 8) top = cy - halfH - gap - height;
    top = Math.min(Math.max(8, top), stage.height - height - 8);
    const left = Math.min(Math.max(8, cx - width / 2), stage.width - width - 8);
    if (avoid && !avoid.hidden) {
      const other = { top: avoid.offsetTop, bottom: avoid.offsetTop + avoid.offsetHeight };
      if (top < other.bottom + 6 && top + height > other.top - 6) {
        top = other.top > stage.height / 2 ? other.top - height - 8 : other.bottom + 8;
      }
    }
    top = Math.min(Math.max(8, top), stage.height - height - 8);
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
      const result = await api.upload(files, (fraction) => { $('upload-bar').value = Math.round(fraction * 100); });
      toastUploadFailures(result);
      const photos = [...(result.photos ?? [])];
      this.clearTrayTarget();
      if (photos.length) this.loadTray();
      if (photos.length && target?.replace) await this.replacePhoto(target.replace, photos.shift().id);
      const edits = photos.map((photo) => ({ op: 'addItem', id: newID(), content: { type: 'photo', ref: photo.id } }));
      if (edits.length && target?.slot !== undefined) edits.splice(1, 0, { op: 'placeInSlot', id: edits[0].id, slot: target.slot });
      if (edits.length) await this.commit(edits);
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

mixin(Editor, CanvasView, Gestures, Dialogs, Lifting, Panels, Premium, TextEditing);
