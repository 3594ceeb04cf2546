// The editor's one store: the open collage as the server last answered it, the selection, the
// mode (lifting, cropping), a layout being tried, and the queue of changes on their way to the
// server. Views read it, and change it only through its intents (`select`, `setMode`,
// `commit`, `undo`, …); every change is announced to the subscribers, which redraw from it.
import { api, setStatus } from './api.js';
import { loadLicence } from './licence.js';
import { mergeable } from './merge.js';
import { toast } from './ui.js';

export class EditorStore {
  constructor(id, app) {
    /** The collage's id, and the page's session (the token's limits, whether stickers work). */
    this.id = id;
    this.app = app;
    /** `{version, collage, media, layout, history}` as the server last answered (or a tried layout). */
    this.doc = null;
    /** The selected item's id, or null. */
    this.selected = null;
    /** What a click does on the selected photo: lift its subject, or move the picture in its frame. */
    this.liftMode = false;
    this.cropMode = false;
    /** A premium layout being tried: `{template, saved}`, the saved document under it. */
    this.previewing = null;
    /** Where the tray's next photo goes: `{slot}` or `{replace}`, or null for "add". */
    this.trayTarget = null;
    /** Every change sent, in order: each starts when the one before it is answered. */
    this.saving = Promise.resolve();
    this.closed = false;
    /** Whether a view is in the middle of something the server's answer must not replace. */
    this.isBusy = () => false;
    /** Whether words typed (a text's, the title's) wait for their pause to be saved. */
    this.hasUnsavedTyping = () => false;
    this.subscribers = [];
    this.listeners = [];
  }

  /** Calls `handler(what)` after every change: 'document', 'selection', 'mode', 'preview', 'pending'. */
  subscribe(handler) { this.subscribers.push(handler); }

  changed(what) {
    if (this.closed && what !== 'closed') return;
    for (const handler of this.subscribers) handler(what);
  }

  /** An event listener removed when the editor closes. */
  listen(target, type, handler, options) {
    target.addEventListener(type, handler, options);
    this.listeners.push(() => target.removeEventListener(type, handler, options));
  }

  /** Stops: work still under way (a save, a lift, an upload) finishes without drawing. */
  close() {
    this.closed = true;
    clearTimeout(this.focusTimer);
    this.previewing = null;
    for (const remove of this.listeners) remove();
    this.listeners = [];
    this.changed('closed');
  }

  /** Reads the collage from the server; throws what the server said. */
  async load() {
    const doc = await api.collage(this.id);
    if (this.closed) return false;
    this.doc = doc;
    return true;
  }

  get collage() { return this.doc.collage; }

  selectedItem() { return this.collage.items.find((item) => item.id === this.selected) ?? null; }

  /** Selects an item (or nothing). */
  select(id) {
    this.selected = id;
    this.changed('selection');
  }

  /** Turns a mode ('lift' or 'crop') on or off; crop mode is for photos only. */
  setMode(mode, on) {
    if (mode === 'lift') this.liftMode = on;
    else this.cropMode = on && this.selectedItem()?.content.type === 'photo';
    this.changed('mode');
  }

  /** Where the photo tray's next choice goes (`{slot}`, `{replace}`), or null. */
  setTrayTarget(target) { this.trayTarget = target; }

  /** Shows `doc` (a premium layout tried on this collage) over `saved`, storing nothing. */
  startPreview(doc, template, saved) {
    this.selected = null;
    this.cropMode = false;
    this.previewing = { template, saved };
    this.doc = doc;
    this.changed('preview');
  }

  /** Back to the saved collage (before any change is sent, so nothing is built on a preview). */
  endPreview() {
    if (!this.previewing) return;
    this.doc = this.previewing.saved;
    this.previewing = null;
    this.changed('preview');
  }

  /** Draws `doc` once in place of the collage (a live preview of a style), then puts it back. */
  showOnce(doc) {
    const saved = this.doc;
    this.doc = doc;
    this.showingOnce = true;
    this.changed('document');
    this.showingOnce = false;
    this.doc = saved;
  }

  /** Takes the server's latest crops now (before an export), when nothing else changed the collage. */
  async catchUpOnFocus() {
    const latest = await api.collage(this.id).catch(() => null);
    if (!latest || this.closed || this.isBusy() || this.previewing || latest.version !== this.doc.version) return;
    this.doc = latest;
    this.changed('document');
    this.watchPendingFocus();
  }

  /**
   * Takes a newer version of the collage made in another window, when nothing here is under
   * way (a gesture, words being typed, a layout being tried): a phone picked up again showed
   * its old version, saying all was saved, until its own next change.
   */
  catchUp() {
    if (this.closed || !this.doc) return this.saving;
    this.saving = this.saving.then(async () => {
      if (this.closed) return;
      const latest = await api.collage(this.id).catch(() => null);
      if (!latest || this.closed || this.isBusy() || this.previewing || latest.version <= this.doc.version) return;
      this.doc = latest;
      if (this.selected && !latest.collage.items.some((item) => item.id === this.selected)) this.selected = null;
      this.changed('document');
      this.changed('selection');
      this.watchPendingFocus();
    });
    return this.saving;
  }

  /** How many photos are shown centred while the server still looks for their subjects. */
  pendingFocus(doc = this.doc) {
    return Object.values(doc?.media ?? {}).filter((media) => media.focusPending).length;
  }

  /**
   * A photo the server has not analysed yet is shown centred, as exports draw it now; once the
   * background analysis finds its subject, both crop around it. The page asks again every few
   * seconds until then, taking the answer only when nothing else changed the collage meanwhile.
   */
  watchPendingFocus() {
    clearTimeout(this.focusTimer);
    this.changed('pending');
    if (this.closed || !this.pendingFocus()) return;
    this.focusTimer = setTimeout(() => {
      this.saving = this.saving.then(async () => {
        if (this.closed) return;
        try {
          const latest = await api.collage(this.id);
          if (!this.closed && !this.isBusy() && !this.previewing && latest.version === this.doc.version
              && this.pendingFocus(latest) < this.pendingFocus()) {
            this.doc = latest;
            this.changed('document');
          }
        } catch {
          // The next change asks again.
        }
        this.watchPendingFocus();
      });
    }, 1500);
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
    // A change asked for before the editor closed (the words typed as it closes) is still sent;
    // only its answer is not drawn, for the canvas is another editor's by then.
    const askedOpen = !this.closed;
    this.saving = this.saving.then(async () => {
      if (!askedOpen) return;
      const request = send();
      if (!request) return;
      if (!this.closed) setStatus('Saving…');
      try {
        const doc = await request;
        if (this.closed) return;
        this.doc = doc;
        // Words typed since this change was sent are not saved yet.
        setStatus(this.hasUnsavedTyping() ? 'Editing…' : 'All changes saved');
        this.watchPendingFocus();
      } catch (error) {
        if (this.closed) return;
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
      this.changed('document');
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
}
