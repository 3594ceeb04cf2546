// The editor: holds the open collage and its selection, saves every change through the API
// (autosave) at the version it last saw, and walks the library's undo history. Drawing,
// gestures, dialogs and lifting live in their own modules, mixed in below.
import { api, setStatus } from './api.js';
import { CanvasView } from './canvas-view.js';
import { Dialogs } from './dialogs.js';
import { Gestures } from './gestures.js';
import { Lifting } from './lift.js';
import { $, fillSelect, mixin, newID, toast } from './ui.js';

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
    this.closed = true;
    for (const remove of this.listeners) remove();
    this.listeners = [];
    for (const drawn of this.stickerPixels.drawn.values()) URL.revokeObjectURL(drawn.url);
    this.stickerPixels.drawn.clear();
    this.stickerPixels.latest.clear();
  }

  async open() {
    this.setControlsEnabled(false);
    try {
      this.doc = await api.collage(this.id);
    } catch (error) {
      this.showUnavailable(error);
      return;
    }
    this.setControlsEnabled(true);
    document.title = `${this.doc.collage.title} — Collage`;
    this.setUpToolbar();
    this.setUpCanvas();
    this.render();
    setStatus('All changes saved');
  }

  get collage() { return this.doc.collage; }

  /** Every tool in the toolbar on or off: nothing can be pressed while no collage is open. */
  setControlsEnabled(enabled) {
    for (const control of document.querySelectorAll('#editor-view .toolbar :is(button, input, select)')) {
      control.disabled = !enabled;
    }
    $('canvas').hidden = !enabled;
    $('editor-missing').hidden = enabled;
  }

  /** What the person sees instead of a canvas when the collage cannot be opened. */
  showUnavailable(error) {
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
    this.saving = this.saving.then(async () => {
      const request = send();
      if (!request) return;
      setStatus('Saving…');
      try {
        this.doc = await request;
        setStatus('All changes saved');
      } catch (error) {
        if (error.status === 409 && error.body?.error?.current) {
          this.doc = error.body.error.current;
          setStatus('This collage changed elsewhere; showing the latest version', 'error');
          toast('This collage changed in another window: showing the latest version', 'error');
        } else {
          setStatus(`Not saved: ${error.message}`, 'error');
          toast(`Not saved: ${error.message}`, 'error');
        }
      }
      this.render();
    });
    return this.saving;
  }

  /** Sends edits at the current version. */
  commit(edits) { return this.save(() => api.edit(this.id, this.doc.version, edits)); }

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
    if (this.closed) return;
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

  async addPhotos(files) {
    const progress = $('upload-progress');
    progress.hidden = false;
    $('upload-text').textContent = `Uploading ${files.length} photo${files.length === 1 ? '' : 's'}…`;
    try {
      const result = await api.upload(files, (fraction) => { $('upload-bar').value = Math.round(fraction * 100); });
      // The server's message names the file already.
      for (const failure of result.errors ?? []) {
        toast(failure.message.startsWith(failure.file) ? failure.message : `${failure.file}: ${failure.message}`, 'error');
      }
      const edits = (result.photos ?? []).map((photo) => ({ op: 'addItem', id: newID(), content: { type: 'photo', ref: photo.id } }));
      if (edits.length) {
        await this.commit(edits);
        toast(`Added ${edits.length} photo${edits.length === 1 ? '' : 's'}`, 'success');
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

mixin(Editor, CanvasView, Gestures, Dialogs, Lifting);
