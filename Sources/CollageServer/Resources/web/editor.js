// The editor of one collage: its store (store.js: the document, the selection, the mode, the
// changes on their way to the server) and the views that draw from it and send it intents:
// the canvas, its gestures, the toolbar, the side panel, text, lifting, premium layouts and
// the export dialog. Each view keeps only its own working state (a gesture under way, the text
// being typed); what they share lives in the store, and every change to it is drawn here.
import { setStatus } from './api.js';
import { CanvasView } from './canvas-view.js';
import { Dialogs } from './dialogs.js';
import { PhotoBackdrop } from './backdrop.js';
import { FramePanel } from './frame.js';
import { Gestures } from './gestures.js';
import { Lifting } from './lift.js';
import { Panels } from './panel.js';
import { Premium } from './premium.js';
import { Refining } from './refine.js';
import { EditorStore } from './store.js';
import { TextEditing } from './text.js';
import { Toolbar } from './toolbar.js';
import { $ } from './ui.js';

export class Editor {
  constructor(id, app) {
    this.store = new EditorStore(id, app);
    this.canvas = new CanvasView(this.store, this);
    this.gestures = new Gestures(this.store, this);
    this.toolbar = new Toolbar(this.store, this);
    this.panels = new Panels(this.store, this);
    this.frame = new FramePanel(this.store, this);
    this.backdrop = new PhotoBackdrop(this.store, this);
    this.text = new TextEditing(this.store, this);
    this.lifter = new Lifting(this.store, this);
    this.refiner = new Refining(this.store, this);
    this.premium = new Premium(this.store, this);
    this.dialogs = new Dialogs(this.store, this);
    // The server's answer does not replace the collage under a gesture or words being typed.
    this.store.isBusy = () => !!this.gestures.gesture || !!this.text.textEditing;
    this.store.hasUnsavedTyping = () => this.toolbar.titleWaiting() || this.text.textWaiting();
    this.store.subscribe((what) => this.update(what));
    // Words still being typed go as the page does (a reload, a closed tab, a phone's home
    // button): the save a pause later would never come. The edit outlives the page (api.js).
    this.store.listen(window, 'pagehide', () => this.saveTyping({ leaving: true }));
    // And what another window changed shows when this one is looked at again (see catchUp).
    this.store.listen(document, 'visibilitychange', () => {
      if (document.visibilityState === 'hidden') this.saveTyping();
      else this.store.catchUp();
    });
    this.store.listen(window, 'focus', () => this.store.catchUp());
  }

  /** Sends what was typed and not yet saved: the title (at once when `leaving`), a text's words. */
  saveTyping({ leaving = false } = {}) {
    if (this.store.closed) return;
    this.toolbar.saveTitle({ leaving });
    this.text.flushText();
  }

  /** Typing stopped with nothing left to save (back to the saved words): the status says so. */
  typingSettled() {
    if ($('status').textContent === 'Editing…' && !this.store.hasUnsavedTyping()) setStatus('All changes saved');
  }

  /** Draws what changed in the store. */
  update(what) {
    switch (what) {
      case 'document':
        this.canvas.render();
        this.panels.markPlacedPhotos();
        break;
      case 'preview':
        this.premium.showPreviewState();
        this.canvas.render();
        break;
      case 'selection':
        // Selecting another item ends the typing in a text.
        if (this.text.textEditing && this.text.textEditing.id !== this.store.selected) this.text.finishTextEditing();
        for (const element of $('canvas').querySelectorAll('.item')) {
          element.classList.toggle('selected', element.dataset.id === this.store.selected);
        }
        this.canvas.drawSelection();
        this.toolbar.updateToolbar();
        break;
      case 'pending':
      case 'closed':
        // How many photos the canvas shows centred for now (tests wait for none before comparing).
        $('canvas').dataset.focusPending = String(this.store.closed ? 0 : this.store.pendingFocus());
        break;
      default:
        break;
    }
  }

  /** Stops this editor: work still under way (a save, a lift, an upload) finishes without drawing. */
  close() {
    this.dialogs.stopCanvasPreview();
    this.toolbar.saveTitle();
    this.text.finishTextEditing();
    this.store.close();
    this.canvas.close();
  }

  async open() {
    this.toolbar.resetSharedState();
    this.toolbar.setControlsEnabled(false);
    try {
      if (!(await this.store.load())) return;
    } catch (error) {
      if (!this.store.closed) this.toolbar.showUnavailable(error);
      return;
    }
    this.toolbar.setControlsEnabled(true);
    document.title = `${this.store.collage.title} — Collage`;
    this.toolbar.setUpToolbar();
    this.panels.setUpPanel();
    this.frame.setUp();
    this.backdrop.setUp();
    this.premium.setUpPremium();
    this.text.setUpText();
    this.gestures.setUpCanvas();
    this.canvas.render();
    setStatus('All changes saved');
    this.store.watchPendingFocus();
  }
}
